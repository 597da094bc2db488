package index

import (
	"math/bits"
	"slices"
	"sync"
)

// The popular match: a description's ranking (and sort=popular's), by
// terms met and then renown, over bitmaps of the whole catalogue a word
// of 64 perfumes at a time. Each term (an accord or note wished, a want,
// the gender, season or time preferred) is a bitmap of the perfumes
// meeting it, made of the common accords' and notes' bitmaps (matchBits)
// and the rare ones' postings; the terms are added up per perfume in bit
// planes (a counter of up to 31 in five bitmaps), so that the perfumes
// meeting m terms are a bitmap too. The page is then taken tier by tier,
// most terms first: a tier is walked in renown order (Index.byRenown)
// while it is dense, or its perfumes sorted by renown when it is small,
// so no perfume is scored one at a time.

// countPlanes is how many bit planes count the terms met (up to 31).
const countPlanes = 5

// popularWork is the working memory of a popular match, kept between
// matches: the terms' bitmaps, the perfumes passing the filters, the
// count's planes (each word written whole by a match) and a tier.
type popularWork struct {
	terms  [][]uint64
	pass   []uint64
	planes [countPlanes][]uint64
	tier   []uint64
	docs   []uint32
}

type popularPool struct{ p sync.Pool }

func (ix *Index) popularWork(terms int) *popularWork {
	n := ix.bits.words
	w, _ := ix.popular.p.Get().(*popularWork)
	if w == nil {
		w = &popularWork{pass: make([]uint64, n), tier: make([]uint64, n)}
		for i := range w.planes {
			w.planes[i] = make([]uint64, n)
		}
	}
	for len(w.terms) < terms {
		w.terms = append(w.terms, make([]uint64, n))
	}
	return w
}

func (ix *Index) putPopularWork(w *popularWork) {
	for _, t := range w.terms {
		clear(t)
	}
	w.docs = w.docs[:0]
	ix.popular.p.Put(w)
}

// matchPopular selects as matchRanked does and returns the count and the
// first want perfumes by terms met, then renown, with their keys
// (terms met << 32 | renown).
func (ix *Index) matchPopular(r *resolved, rq *rankedQuery, want int) (int, []keyed) {
	if rq.brand == -2 {
		return 0, nil
	}
	mb := ix.bits
	nt := rq.terms(r)
	w := ix.popularWork(nt)
	defer ix.putPopularWork(w)
	terms := w.terms[:nt]
	t := 0
	for _, id := range r.accIDs {
		ix.accordBits(id, terms[t])
		t++
	}
	for _, id := range r.noteIDs {
		ix.noteBits(id, terms[t])
		t++
	}
	for i := range rq.wantAcc {
		for _, id := range rq.wantAcc[i] {
			ix.accordBits(id, terms[t])
		}
		for _, id := range rq.wantNote[i] {
			ix.noteBits(id, terms[t])
		}
		t++
	}
	if g := rq.preferGender; g != 0 {
		for g != 0 {
			orInto(terms[t], mb.filter[bits.TrailingZeros16(g)*mb.words:][:mb.words])
			g &= g - 1
		}
		t++
	}
	if rq.preferSeason >= 0 {
		copy(terms[t], ix.nearBits[rq.preferSeason*mb.words:][:mb.words])
		t++
	}
	if rq.preferTime != 0 {
		copy(terms[t], ix.nearBits[bits.TrailingZeros8(rq.preferTime)*mb.words:][:mb.words])
	}
	ix.passing(r, rq, w)
	// The count of terms met, in bit planes. A perfume is listed when it
	// meets a scent asked (an accord, a note, a want), or with none asked
	// a preference, or with nothing asked when it passes: w.pass becomes
	// those listed, and the total their number.
	scents := len(r.accIDs) + len(r.noteIDs) + len(rq.wantAcc)
	total := 0
	for j, pass := range w.pass {
		var pl [countPlanes]uint64 // the word's count, added up in registers
		if nt > 0 {
			var any, anyScent uint64
			for i, term := range terms {
				carry := term[j]
				any |= carry
				if i < scents {
					anyScent |= carry
				}
				for p := 0; carry != 0 && p < countPlanes; p++ {
					x := pl[p] & carry
					pl[p] ^= carry
					carry = x
				}
			}
			if scents > 0 {
				any = anyScent
			}
			pass &= any
			w.pass[j] = pass
		}
		for p, x := range pl {
			w.planes[p][j] = x
		}
		total += bits.OnesCount64(pass)
	}
	out := make([]keyed, 0, min(want, 256))
	for m := nt; m >= 0 && len(out) < want; m-- {
		if m == 0 && nt > 0 {
			break // a perfume meeting no term is not listed
		}
		n := w.tierOf(m)
		out = ix.takeTier(w, out, n, want-len(out), uint64(m)<<32)
	}
	return total, out
}

// passing sets w.pass to the perfumes passing r's filters and rq's
// brand, without an excluded accord or note.
func (ix *Index) passing(r *resolved, rq *rankedQuery, w *popularWork) {
	mb := ix.bits
	pass := w.pass
	for i := range pass {
		pass[i] = ^uint64(0)
	}
	n := len(ix.entries)
	clear(pass[(n+63)/64:])
	if n%64 != 0 {
		pass[n/64] = 1<<(n%64) - 1
	}
	for need := r.need; need != 0; need &= need - 1 {
		f := mb.filter[bits.TrailingZeros16(need)*mb.words:][:mb.words]
		for i := range pass {
			pass[i] &= f[i]
		}
	}
	if rq.brand >= 0 {
		clear(w.tier)
		for _, d := range ix.brands[rq.brand].docs {
			w.tier[d/64] |= 1 << (d % 64)
		}
		for i := range pass {
			pass[i] &= w.tier[i]
		}
	}
	if len(rq.exclAcc)+len(rq.exclNote) > 0 {
		clear(w.tier)
		for _, id := range rq.exclAcc {
			ix.accordBits(id, w.tier)
		}
		for _, id := range rq.exclNote {
			ix.noteBits(id, w.tier)
		}
		for i := range pass {
			pass[i] &^= w.tier[i]
		}
	}
}

// tierOf sets w.tier to the perfumes listed (w.pass) that meet exactly m
// terms and returns how many there are.
func (w *popularWork) tierOf(m int) int {
	n := 0
	for j, pass := range w.pass {
		x := pass
		for p := range countPlanes {
			if m>>p&1 != 0 {
				x &= w.planes[p][j]
			} else {
				x &^= w.planes[p][j]
			}
		}
		w.tier[j] = x
		n += bits.OnesCount64(x)
	}
	return n
}

// takeTier appends to out the first k of w.tier's n perfumes by renown,
// keyed with base | renown. A dense tier is walked in renown order until
// k are found; a small one is sorted.
func (ix *Index) takeTier(w *popularWork, out []keyed, n, k int, base uint64) []keyed {
	if n == 0 || k <= 0 {
		return out
	}
	if n > 4*k {
		for _, d := range ix.byRenown {
			if w.tier[d/64]>>(d%64)&1 != 0 {
				out = append(out, keyed{base | uint64(ix.renown[d]), d})
				if k--; k == 0 {
					break
				}
			}
		}
		return out
	}
	docs := w.docs[:0]
	for j, x := range w.tier {
		for ; x != 0; x &= x - 1 {
			docs = append(docs, uint32(j*64+bits.TrailingZeros64(x)))
		}
	}
	slices.SortFunc(docs, func(a, b uint32) int { return int(ix.renown[b]) - int(ix.renown[a]) })
	for _, d := range docs[:min(k, len(docs))] {
		out = append(out, keyed{base | uint64(ix.renown[d]), d})
	}
	w.docs = docs
	return out
}

// accordBits sets in dst the perfumes having accord id: from its
// bitmaps when it has them, else from its postings.
func (ix *Index) accordBits(id uint32, dst []uint64) {
	if wb := ix.bits.acc[id]; wb.words != nil {
		for b := 0; b*blockWords < len(dst); b++ {
			pl := wb.words[b*3*blockWords:][:3*blockWords]
			d := dst[b*blockWords:][:blockWords]
			for j := range d {
				d[j] |= pl[j] | pl[blockWords+j] | pl[2*blockWords+j]
			}
		}
		return
	}
	s := ix.sim
	for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
		d := p >> 8
		dst[d/64] |= 1 << (d % 64)
	}
}

// noteBits is accordBits for a note.
func (ix *Index) noteBits(id uint32, dst []uint64) {
	if wb := ix.bits.note[id]; wb.words != nil {
		orInto(dst, wb.words[:len(dst)])
		return
	}
	s := ix.sim
	for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
		d := p >> 2
		dst[d/64] |= 1 << (d % 64)
	}
}

func orInto(dst, src []uint64) {
	src = src[:len(dst)]
	for i, x := range src {
		dst[i] |= x
	}
}
