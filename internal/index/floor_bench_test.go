package index

import (
	"math/bits"
	"testing"

	"github.com/fragrance-data/fragrance/internal/search"
)

// The floors of exact totals: what a match and a search cost when they
// only count what they find, with no page ranked. Every answer of either
// carries its exact total (and pages from it), so whatever ranks its page,
// it reads at least this much: for match, every asked accord's and note's
// documents and the filters, a bitmap or the postings of each; for a
// search, the lookup of its terms and the walk over every posting of
// them. They run beside BenchmarkCold's match and search, on the same
// inputs, so that the part of a cold answer no ranking can spare is read
// off one run (bench/RESULTS.md, issue 19).

// matchTotal is Match's Total alone: the perfumes having one of q's
// wishes (any accord or note asked) and passing its filters, counted a
// block at a time from the wishes' bitmaps, or from their postings for
// the rare ones, ANDed with the filters' bitmaps.
func matchTotal(ix *Index, q MatchQuery) (int, error) {
	r, err := ix.resolve(q)
	if err != nil || len(r.accIDs)+len(r.noteIDs) == 0 {
		return 0, err // the filters alone are counted as Match counts them
	}
	s, mb := ix.sim, ix.bits
	type wishDocs struct {
		bits   wishBits
		post   []uint32
		shift  uint
		planes int
	}
	var ws []wishDocs
	for _, id := range r.accIDs {
		ws = append(ws, wishDocs{mb.acc[id], s.accPost[s.accOff[id]:s.accOff[id+1]], 8, 3})
	}
	for _, id := range r.noteIDs {
		ws = append(ws, wishDocs{mb.note[id], s.notePost[s.noteOff[id]:s.noteOff[id+1]], 2, 1})
	}
	total := 0
	for b := range mb.words / blockWords {
		var live [blockWords]uint64
		for i := range ws {
			w := &ws[i]
			if w.bits.words == nil {
				end := uint32(b+1) * matchBlock
				for len(w.post) > 0 && w.post[0]>>w.shift < end {
					d := w.post[0] >> w.shift & (matchBlock - 1)
					live[d/64] |= 1 << (d % 64)
					w.post = w.post[1:]
				}
				continue
			}
			pl := w.bits.words[b*w.planes*blockWords:][:w.planes*blockWords]
			for p := range w.planes {
				for j, x := range pl[p*blockWords:][:blockWords] {
					live[j] |= x
				}
			}
		}
		for need := r.need; need != 0; need &= need - 1 {
			f := mb.filter[bits.TrailingZeros16(need)*mb.words+b*blockWords:][:blockWords]
			for j := range live {
				live[j] &= f[j]
			}
		}
		for _, x := range live {
			total += bits.OnesCount64(x)
		}
	}
	return total, nil
}

// searchTotal is a search's total alone: its terms looked up and every
// posting of them walked, each document found counted once.
func searchTotal(ix *Index, q string) int {
	n := 0
	ix.text.Search(search.ParseQuery(q, ix.lx), nil, func(*search.Match) { n++ })
	return n
}

// TestFloorTotalsAreMatchTotals holds the floors to the totals the
// answers carry, so that they count what the answers count.
func TestFloorTotalsAreMatchTotals(t *testing.T) {
	ix := realIndex(t)
	in := newColdInputs(ix)
	n := 200
	if testing.Short() || raceEnabled {
		n = 40
	}
	for _, q := range in.profiles[:n] {
		got, err := matchTotal(ix, q)
		res, werr := ix.Match(q)
		if err != nil || werr != nil || got != res.Total {
			t.Fatalf("%+v: matchTotal %d, %v; Match's Total %d, %v", q, got, err, res.Total, werr)
		}
	}
	for _, q := range in.searches[:n] {
		if got, want := searchTotal(ix, q), ix.Perfumes(ListQuery{Q: q, Page: 1, Limit: 20}).Total; got != want {
			t.Fatalf("%q: searchTotal %d, the page's Total %d", q, got, want)
		}
	}
}
