package index

// orderRuns lets a run of a sorted order (the documents of a year range in
// byOldest, those rated at least some value in byRawRating) be read as a
// bitmap without visiting each of its documents: it keeps bitmaps of the
// order's first step, 2×step, 3×step … documents, so a run is the
// difference of two of them plus at most two steps of documents at its
// ends.
type orderRuns struct {
	order []uint32
	step  int
	words int
	// prefix holds the bitmap of order[:i*step] for i from 1 to
	// len(order)/step, each words long, one after another.
	prefix []uint64
}

// runPrefixes is how many prefix bitmaps an order keeps (fewer when the
// order is shorter than minRunStep of them): 32 of a 200,000-perfume
// catalogue take 800 KB, and leave a run at most 2 × 6,250 documents to
// visit.
const (
	runPrefixes = 32
	minRunStep  = 2048
)

func newOrderRuns(order []uint32, words int) orderRuns {
	r := orderRuns{order: order, words: words, step: max(minRunStep, (len(order)+runPrefixes-1)/runPrefixes)}
	count := len(order) / r.step
	r.prefix = make([]uint64, count*words)
	acc := make([]uint64, words)
	for i := 1; i <= count; i++ {
		for _, d := range order[(i-1)*r.step : i*r.step] {
			acc[d/64] |= 1 << (d % 64)
		}
		copy(r.prefix[(i-1)*words:i*words], acc)
	}
	return r
}

// keep keeps in cand only the documents order[lo:hi]; tmp is scratch of
// cand's length.
func (r *orderRuns) keep(cand, tmp []uint64, lo, hi int) {
	a := (lo + r.step - 1) / r.step // the first prefix boundary at or after lo
	b := hi / r.step                // the last at or before hi
	if a >= b {
		clear(tmp)
		setBits(tmp, r.order[lo:hi])
	} else {
		pb := r.prefix[(b-1)*r.words : b*r.words]
		if a == 0 {
			copy(tmp, pb)
		} else {
			pa := r.prefix[(a-1)*r.words : a*r.words]
			for i := range tmp {
				tmp[i] = pb[i] &^ pa[i]
			}
		}
		setBits(tmp, r.order[lo:a*r.step])
		setBits(tmp, r.order[b*r.step:hi])
	}
	for i, x := range tmp {
		cand[i] &= x
	}
}

// setBits sets the documents' bits in bm.
func setBits(bm []uint64, docs []uint32) {
	for _, d := range docs {
		bm[d/64] |= 1 << (d % 64)
	}
}
