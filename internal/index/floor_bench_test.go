package index

import (
	"math/bits"
	"testing"

	"github.com/fragrance-data/fragrance/internal/racedetect"
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
// off one run (bench/RESULTS.md).

// matchTotal is Match's Total alone: matchWishes' count with no
// candidate kept, the same wishes (wishesOf), blocks (nextBlock), bitmaps
// or postings (load, with no wish required) and filters (filter), and
// nothing scored.
func matchTotal(ix *Index, q MatchQuery) (int, error) {
	r, err := ix.resolve(q)
	if err != nil || len(r.accIDs)+len(r.noteIDs) == 0 {
		return 0, err // the filters alone are counted as Match counts them
	}
	work, _ := ix.bits.pool.Get().(*matchWork)
	if work == nil {
		work = new(matchWork)
	}
	defer ix.bits.pool.Put(work)
	ws := ix.wishesOf(&r, work)
	m := matchScan{ix: ix, need: r.need}
	for {
		base, ok := nextBlock(ws)
		if !ok {
			return m.total, nil
		}
		var live, cand [blockWords]uint64
		for i := range ws {
			ws[i].load(base, -1, &cand)
			for j, x := range ws[i].pres {
				live[j] |= x
			}
		}
		m.filter(base, &live)
		for _, x := range live {
			m.total += bits.OnesCount64(x)
		}
	}
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
	if testing.Short() || racedetect.Enabled {
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
