package index

import (
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// TestFacetCountsAgreeWhicheverWayTheyAreCounted holds every way Browse
// may count a set's accords, notes and years to the brute force: a walk
// of any combination of the three, over the set or over its complement,
// from the 16-bit stream and a 32-bit copy of it, and the accords and
// notes counted id by id from bitmaps and postings. Which way a query
// takes depends on the set's size, so each is checked on every set here,
// small and large.
func TestFacetCountsAgreeWhicheverWayTheyAreCounted(t *testing.T) {
	ix := realIndex(t)
	bi := ix.browse
	if bi.refs16 == nil {
		t.Fatal("the bundled catalogue's accords, notes and years should fit a 16-bit stream")
	}
	wide := &facetRefs[uint32]{off: bi.refs16.off, mid: bi.refs16.mid, refs: make([]uint32, len(bi.refs16.refs))}
	for i, r := range bi.refs16.refs {
		wide.refs[i] = uint32(r)
	}
	lay := bi.fixedLayout()
	acc, note := ix.accordFacet(), ix.noteFacet()
	for _, q := range []BrowseQuery{
		{Brand: "guerlain"},
		{Notes: []string{"Oud", "Saffron"}, Years: YearRange{From: 2015}},
		{Accords: []string{"woody"}, Time: "night"},
		{NotAccords: []string{"oud"}},
		{Genders: []catalog.Gender{catalog.Feminine}, Season: "summer"},
		{Q: "vanilla"},
		{Perfumer: "no-such-perfumer"},
	} {
		f, err := ix.resolveBrowse(q)
		if err != nil {
			t.Fatal(err)
		}
		w := bi.work()
		if all := ix.filterSet(&f, w); q.Q != "" {
			ix.textSet(search.ParseQuery(q.Q, ix.lx), w, all)
		}
		if f.perfumer == -2 {
			clear(w.cand)
		}
		set := map[*Entry]bool{}
		for i, word := range w.cand {
			for ; word != 0; word &= word - 1 {
				set[&ix.entries[i*64+bits.TrailingZeros64(word)]] = true
			}
		}
		want := bruteFacets(set)
		check := func(how, name string, got []FacetCount) {
			t.Helper()
			w := want[name]
			if name != FacetYear {
				w = topValues(slices.Clone(w))
				got = slices.Clone(got)
				for i := range got {
					got[i].Value = search.Fold(got[i].Value)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%+v (%d perfumes), %s, %s:\n got %v\nwant %v", q, len(set), how, name, got, w)
			}
		}
		_, tail := bi.complement(0)
		for p := 1; p < 8; p++ {
			parts := walkParts{accords: p&1 != 0, notes: p&2 != 0, year: p&4 != 0}
			for _, flip := range []uint64{0, ^uint64(0)} {
				for _, stream := range []string{"16-bit", "32-bit"} {
					if stream == "16-bit" {
						bi.walk(w.cand, flip, tail, parts, w.row)
					} else {
						clear(w.row)
						walkRefs(wide, bi.yearAt, w.cand, flip, tail, parts, w.row, lay)
					}
					if flip != 0 {
						bi.uncomplement(w.row, parts)
					}
					how := fmt.Sprintf("walk of %+v, flip %x, %s stream", parts, flip&1, stream)
					if parts.accords {
						check(how, FacetAccords, acc.top(w.row[lay.acc:lay.note]))
					}
					if parts.notes {
						check(how, FacetNotes, note.top(w.row[lay.note:lay.year]))
					}
					if parts.year {
						check(how, FacetYear, bi.yearList(w.row[lay.year:]))
					}
				}
			}
		}
		check("id by id", FacetAccords, acc.topByBitmaps(w.cand))
		check("id by id", FacetNotes, note.topByBitmaps(w.cand))
		bi.pool.Put(w)
	}
}
