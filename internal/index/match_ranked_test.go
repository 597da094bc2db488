package index

import (
	"errors"
	"slices"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

func mustMatch(t *testing.T, ix *Index, q MatchQuery) MatchResult {
	t.Helper()
	if q.Page == 0 {
		q.Page, q.Limit = 1, 50
	}
	res, err := ix.Match(q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	return res
}

func TestMatchExcludeKeepsTheOrderWithoutTheExcluded(t *testing.T) {
	ix := smallIndex()
	for _, q := range []MatchQuery{
		{Accords: []AccordWant{{Name: "vanilla", Strength: 100}, {Name: "woody", Strength: 60}}},
		{Notes: []string{"Vanilla", "Lavender"}},
		{Gender: catalog.Masculine},
	} {
		all := mustMatch(t, ix, q)
		q.Exclude = Want{Notes: []string{"tonka bean"}, Accords: []string{"amber"}}
		kept := mustMatch(t, ix, q)
		var want []string
		for _, s := range all.Items {
			e := s.Entry
			pyr := e.Notes().Pyramid()
			notes := slices.Concat(pyr.Top, pyr.Middle, pyr.Base, pyr.Unplaced)
			if slices.Contains(notes, "Tonka Bean") || slices.ContainsFunc(e.Accords().Slice(), func(a catalog.AccordStrength) bool { return a.Name == "amber" }) {
				continue
			}
			want = append(want, s.Slug())
		}
		if got := slugsOf(kept.Items); !slices.Equal(got, want) || kept.Total != len(want) {
			t.Errorf("%+v: %q (total %d), want %q", q, got, kept.Total, want)
		}
		for i := range kept.Items {
			if j := slices.IndexFunc(all.Items, func(s Scored) bool { return s.Entry == kept.Items[i].Entry }); all.Items[j].Score != kept.Items[i].Score {
				t.Errorf("%+v: %s scores %v, %v without the exclusion", q, kept.Items[i].Slug(), kept.Items[i].Score, all.Items[j].Score)
			}
		}
	}
}

func TestMatchPopularPutsPerfumesMeetingEveryWishFirst(t *testing.T) {
	ix := smallIndex()
	res := mustMatch(t, ix, MatchQuery{Notes: []string{"Vanilla", "Lavender"}, Sort: SortPopular})
	// Libre has both notes; Tobacco Vanille and Wild Man only Vanilla,
	// the Sauvages only Lavender.
	got := slugsOf(res.Items)
	if len(got) == 0 || got[0] != "yves-saint-laurent-libre" {
		t.Fatalf("order %q: want Libre, meeting both, first", got)
	}
	if res.Items[0].Score != 100 || res.Items[1].Score != 50 {
		t.Fatalf("scores %v, %v: want 100 for both wishes met, 50 for one", res.Items[0].Score, res.Items[1].Score)
	}
	if want := mustMatch(t, ix, MatchQuery{Notes: []string{"Vanilla", "Lavender"}}).Total; res.Total != want {
		t.Fatalf("total %d, want match's %d", res.Total, want)
	}
	// Among those meeting one, the better known lead.
	for i := 2; i < len(res.Items); i++ {
		a, b := res.Items[i-1], res.Items[i]
		if a.Score == b.Score && a.RatingCount < b.RatingCount {
			t.Errorf("%s (%d ratings) before %s (%d)", a.Slug(), a.RatingCount, b.Slug(), b.RatingCount)
		}
	}
}

func TestMatchDescribedTermsAreMetOrNot(t *testing.T) {
	ix := smallIndex()
	q := MatchQuery{
		Wants:  []Want{{Accords: []string{"vanilla"}, Notes: []string{"Vanilla"}}, {Accords: []string{"tobacco"}, Notes: []string{"Tobacco Leaf"}}},
		Prefer: Preference{Season: "winter", Gender: catalog.Masculine},
	}
	res := mustMatch(t, ix, q)
	got := slugsOf(res.Items)
	// Tobacco Vanille meets all four (unisex counts for masculine),
	// Mystery three (no tobacco).
	if want := []string{"tom-ford-tobacco-vanille", "indie-house-mystery"}; !slices.Equal(got[:2], want) {
		t.Fatalf("order %q, want %q first", got, want)
	}
	if res.Items[0].Score != 100 || res.Items[1].Score != 75 {
		t.Fatalf("scores %v %v, want 100 and 75", res.Items[0].Score, res.Items[1].Score)
	}
	// Every masculine or unisex perfume meets the gender term.
	for _, s := range res.Items {
		if s.Score == 0 {
			t.Fatalf("%s meets nothing, yet listed", s.Slug())
		}
	}
}

func TestMatchBrandKeepsItsPerfumes(t *testing.T) {
	ix := smallIndex()
	res := mustMatch(t, ix, MatchQuery{Wants: []Want{{Accords: []string{"woody"}}}, Brand: "dior"})
	for _, s := range res.Items {
		if s.BrandSlug() != "dior" {
			t.Fatalf("%s is not Dior's", s.Slug())
		}
	}
	if res.Total != 4 {
		t.Fatalf("total %d, want Dior's 4 woody perfumes", res.Total)
	}
	if res := mustMatch(t, ix, MatchQuery{Wants: []Want{{Accords: []string{"woody"}}}, Brand: "nobody"}); res.Total != 0 {
		t.Fatalf("an unknown brand gave %d", res.Total)
	}
}

func TestMatchRefusesUnknownExclusionsAndSorts(t *testing.T) {
	ix := smallIndex()
	_, err := ix.Match(MatchQuery{Notes: []string{"Vanilla"}, Exclude: Want{Notes: []string{"vanila"}}, Sort: "cheapest", Page: 1, Limit: 5})
	var pe catalog.ParamErrors
	if !errors.As(err, &pe) || len(pe) != 2 || pe[0].Parameter != "sort" || pe[1].Parameter != "notes" {
		t.Fatalf("err %v: want sort and notes refused", err)
	}
}

// TestMatchPopularMatchesReference checks the popular match, bitmaps and
// all, against a plain reading of its rule on the bundled catalogue: per
// perfume the terms met, the filters, the exclusions, then terms met and
// renown.
func TestMatchPopularMatchesReference(t *testing.T) {
	ix := realIndex(t)
	queries := []MatchQuery{
		{Wants: []Want{{Accords: []string{"vanilla"}, Notes: []string{"Vanilla", "Madagascar Vanilla"}}, {Accords: []string{"tobacco"}}}, Prefer: Preference{Season: "winter"}},
		{Wants: []Want{{Accords: []string{"citrus"}}, {Accords: []string{"fresh"}}}, Prefer: Preference{Gender: catalog.Masculine, Time: "day"}, Exclude: Want{Accords: []string{"sweet"}}},
		{Notes: []string{"rose", "oud"}, Sort: SortPopular, Gender: catalog.Feminine},
		{Prefer: Preference{Season: "summer", Time: "night"}},
		{Wants: []Want{{Notes: []string{"Saffron"}}}, Brand: "montale"},
		{Exclude: Want{Notes: []string{"Musk"}}, Sort: SortPopular, Season: "fall"},
	}
	// Each perfume's accord and note ids, from its own names, read once
	// for all the queries.
	accsOf := make([]map[uint32]bool, len(ix.entries))
	notesOf := make([]map[uint32]bool, len(ix.entries))
	for d := range ix.entries {
		e := &ix.entries[d]
		accsOf[d] = map[uint32]bool{}
		for _, a := range e.Accords().Slice() {
			accsOf[d][ix.accordIDs[search.Fold(a.Name)]] = true
		}
		notesOf[d] = map[uint32]bool{}
		p := e.Notes().Pyramid()
		for _, n := range slices.Concat(p.Top, p.Middle, p.Base, p.Unplaced) {
			notesOf[d][ix.noteIDs[search.Fold(n)]] = true
		}
	}
	for _, q := range queries {
		q.Page, q.Limit = 2, 7
		got := mustMatch(t, ix, q)
		r, err := ix.resolve(q)
		if err != nil {
			t.Fatal(err)
		}
		rq, err := ix.resolveRanked(&q, &r)
		if err != nil {
			t.Fatal(err)
		}
		type ref struct {
			doc uint32
			met int
		}
		var all []ref
		for d := range ix.entries {
			e, accs, notes := &ix.entries[d], accsOf[d], notesOf[d]
			hasAny := func(as, ns []uint32) bool {
				return slices.ContainsFunc(as, func(id uint32) bool { return accs[id] }) || slices.ContainsFunc(ns, func(id uint32) bool { return notes[id] })
			}
			if hasAny(rq.exclAcc, rq.exclNote) || ix.has[d]&r.need != r.need || (rq.brand >= 0 && ix.brandOf[d] != uint32(rq.brand)) {
				continue
			}
			met, scents := 0, 0
			for _, id := range r.accIDs {
				met += b2i(accs[id])
			}
			for _, id := range r.noteIDs {
				met += b2i(notes[id])
			}
			for i := range rq.wantAcc {
				met += b2i(hasAny(rq.wantAcc[i], rq.wantNote[i]))
			}
			scents = met
			asked := len(r.accIDs)+len(r.noteIDs)+len(rq.wantAcc) > 0
			g := e.Gender()
			if q.Prefer.Gender != "" {
				met += b2i(g == q.Prefer.Gender || g == catalog.Unisex)
			}
			if q.Prefer.Season != "" {
				met += b2i(nearOf(e)&(1<<seasonIndex(q.Prefer.Season)) != 0)
			}
			if q.Prefer.Time == "day" {
				met += b2i(nearOf(e)&nearDay != 0)
			}
			if q.Prefer.Time == "night" {
				met += b2i(nearOf(e)&nearNight != 0)
			}
			if (asked && scents == 0) || (rq.terms(&r) > 0 && met == 0) {
				continue
			}
			all = append(all, ref{uint32(d), met})
		}
		slices.SortFunc(all, func(a, b ref) int {
			if a.met != b.met {
				return b.met - a.met
			}
			return int(ix.renown[b.doc]) - int(ix.renown[a.doc])
		})
		if got.Total != len(all) {
			t.Errorf("%+v: total %d, want %d", q, got.Total, len(all))
		}
		var want []string
		for _, x := range all[min(7, len(all)):min(14, len(all))] {
			want = append(want, ix.entries[x.doc].Slug())
		}
		if g := slugsOf(got.Items); !slices.Equal(g, want) {
			t.Errorf("%+v: page 2 %q, want %q", q, g, want)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
