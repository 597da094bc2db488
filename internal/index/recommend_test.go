package index

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

func mustRecommend(t *testing.T, ix *Index, q RecommendQuery) RecommendResult {
	t.Helper()
	if q.Page == 0 {
		q.Page = 1
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	res, err := ix.Recommend(q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	return res
}

func recSlugs(items []Recommended) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Slug()
	}
	return out
}

func TestRecommendNeverListsTheTasteItself(t *testing.T) {
	ix := smallIndex()
	res := mustRecommend(t, ix, RecommendQuery{Liked: []string{"dior-sauvage", "tom-ford-tobacco-vanille"}, Disliked: []string{"dior-eau-sauvage"}})
	got := recSlugs(res.Items)
	for _, s := range []string{"dior-sauvage", "tom-ford-tobacco-vanille", "dior-eau-sauvage"} {
		if slices.Contains(got, s) {
			t.Errorf("%s listed: %q", s, got)
		}
	}
	if len(res.Source) != 2 || res.Source[0].Slug() != "dior-sauvage" {
		t.Errorf("source %v", res.Source)
	}
	if res.Total != len(got) || res.Pages != 1 {
		t.Errorf("total %d pages %d for %d items", res.Total, res.Pages, len(got))
	}
}

func TestRecommendFindsWhatTheLikedShare(t *testing.T) {
	ix := smallIndex()
	res := mustRecommend(t, ix, RecommendQuery{Liked: []string{"tom-ford-tobacco-vanille", "yves-saint-laurent-libre"}})
	// Mystery is vanilla, which both liked perfumes share.
	got := recSlugs(res.Items)
	if len(got) == 0 || got[0] != "indie-house-mystery" {
		t.Fatalf("order %q: want Mystery first", got)
	}
	first := res.Items[0]
	if len(first.Reasons) == 0 || !strings.Contains(first.Reasons[0].String(), "vanilla") {
		t.Errorf("%s reasons %v: want vanilla shared", first.Slug(), first.Reasons)
	}
}

func TestRecommendDislikedPushesAway(t *testing.T) {
	ix := smallIndex()
	plain := recSlugs(mustRecommend(t, ix, RecommendQuery{Liked: []string{"yves-saint-laurent-libre"}}).Items)
	away := recSlugs(mustRecommend(t, ix, RecommendQuery{Liked: []string{"yves-saint-laurent-libre"}, Disliked: []string{"dior-sauvage"}}).Items)
	if i := slices.Index(away, "dior-sauvage-eau-de-parfum"); i >= 0 && i <= slices.Index(plain, "dior-sauvage-eau-de-parfum") {
		t.Errorf("Sauvage EDP at %d, %d before disliking Sauvage: %q / %q", slices.Index(away, "dior-sauvage-eau-de-parfum"),
			slices.Index(plain, "dior-sauvage-eau-de-parfum"), away, plain)
	}
}

func TestRecommendAvoidsAndFiltersGender(t *testing.T) {
	ix := smallIndex()
	res := mustRecommend(t, ix, RecommendQuery{Liked: []string{"dior-sauvage"}, Avoid: []string{"amber"}, Gender: catalog.Feminine})
	for _, it := range res.Items {
		if it.Gender() == catalog.Masculine {
			t.Errorf("%s is masculine", it.Slug())
		}
		for _, a := range it.Accords().Slice() {
			if a.Name == "amber" {
				t.Errorf("%s has amber", it.Slug())
			}
		}
	}
}

func TestRecommendCapsABrandAtHalfAPage(t *testing.T) {
	ix := smallIndex()
	res := mustRecommend(t, ix, RecommendQuery{Liked: []string{"dior-sauvage"}, Limit: 2})
	if len(res.Items) == 2 && res.Items[0].Brand() == res.Items[1].Brand() {
		t.Fatalf("page of two from %s", res.Items[0].Brand())
	}
	// Every page together lists every perfume once.
	var all []string
	for p := 1; p <= res.Pages; p++ {
		all = append(all, recSlugs(mustRecommend(t, ix, RecommendQuery{Liked: []string{"dior-sauvage"}, Limit: 2, Page: p}).Items)...)
	}
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(all) || len(all) != res.Total {
		t.Fatalf("pages list %q, total %d", all, res.Total)
	}
}

func TestRecommendNamesUnknownSlugsAndNames(t *testing.T) {
	ix := smallIndex()
	_, err := ix.Recommend(RecommendQuery{Liked: []string{"dior-sauvage", "nope-1"}, Disliked: []string{"nope-2"}, Page: 1, Limit: 10})
	if !errors.Is(err, catalog.ErrNotFound) || !strings.Contains(err.Error(), `"nope-1"`) || !strings.Contains(err.Error(), `"nope-2"`) {
		t.Fatalf("err %v", err)
	}
	_, err = ix.Recommend(RecommendQuery{Liked: []string{"dior-sauvage"}, Avoid: []string{"vanila"}, Page: 1, Limit: 10})
	var pe catalog.ParamErrors
	if !errors.As(err, &pe) || pe[0].Parameter != "avoid" || !strings.Contains(pe[0].Message, "vanilla") {
		t.Fatalf("err %v", err)
	}
}
