package index

import (
	"errors"
	"slices"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

func scoredNames(ss []Scored) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name()
	}
	return out
}

// checkScored asserts what every similar, dupes or match list must hold.
func checkScored(t *testing.T, what string, src *Entry, ss []Scored, limit int) {
	t.Helper()
	if len(ss) > limit {
		t.Errorf("%s: %d results over limit %d", what, len(ss), limit)
	}
	for i, s := range ss {
		if src != nil && s.Slug() == src.Slug() {
			t.Errorf("%s: source in its own results", what)
		}
		if s.Score < 0 || s.Score > 100 || s.Score*10 != float64(int(s.Score*10)) {
			t.Errorf("%s: score %v not 0–100 with one decimal", what, s.Score)
		}
		if i > 0 && s.Score > ss[i-1].Score {
			t.Errorf("%s: not sorted at %d: %v after %v", what, i, s.Score, ss[i-1].Score)
		}
		// Similar and dupes say what a result shares with its source, as
		// empty lists when nothing; a match (no source) says nothing.
		if shared := s.SharedAccords.ids != nil || s.SharedNotes != nil; src != nil && (s.SharedAccords.ids == nil || s.SharedNotes == nil) {
			t.Errorf("%s: shared lists must be empty, not nil", what)
		} else if src == nil && shared {
			t.Errorf("%s: a match has no shared lists", what)
		}
	}
}

func TestSimilarSmall(t *testing.T) {
	ix := smallIndex()
	src, got, err := ix.Similar("dior-sauvage", 10)
	if err != nil || src.Name() != "Sauvage" {
		t.Fatalf("Similar = %v, %v", src, err)
	}
	checkScored(t, "similar sauvage", src, got, 10)
	// Same accords and notes: the score is the confidence in 14,000 ratings.
	if len(got) < 4 || got[0].Name() != "Sauvage Eau de Parfum" || got[0].Score != ranking.Score(ranking.Confidence(14000)) {
		t.Fatalf("similar to Sauvage = %q %v", scoredNames(got), got)
	}
	want := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "fresh spicy", Strength: 80}, {Name: "amber", Strength: 50}}
	if !slices.Equal(got[0].SharedAccords.Slice(), want) || len(got[0].SharedNotes) != 5 {
		t.Errorf("shared = %v %v", got[0].SharedAccords, got[0].SharedNotes)
	}
	// A shorter list is the start of a longer one.
	_, three, _ := ix.Similar("dior-sauvage", 3)
	if names := scoredNames(three); !slices.Equal(names, scoredNames(got)[:3]) {
		t.Errorf("limit 3: %q, limit 10 starts %q", names, scoredNames(got)[:3])
	}
	if _, _, err := ix.Similar("nope", 5); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown slug: %v", err)
	}
	if _, none, err := ix.Similar("dior-sauvage", 0); err != nil || len(none) != 0 || none == nil {
		t.Errorf("limit 0: %v %v", none, err)
	}
}

// TestSimilarLineCap: five flankers as close to the source as can be take
// ranking.MaxPerLine places; the next places go to other houses, however far.
func TestSimilarLineCap(t *testing.T) {
	accords := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "amber", Strength: 60}}
	p := func(id int64, name, brand string, rc int, acc []catalog.AccordStrength) catalog.Perfume {
		return catalog.Perfume{ID: id, Name: name, Brand: brand, Slug: slug(brand) + "-" + slug(name),
			Gender: catalog.Masculine, RatingCount: rc, PriceTier: catalog.TierPremium, Accords: clone2(acc)}
	}
	ps := []catalog.Perfume{p(1, "Line", "House", 9000, accords)}
	for i, ed := range []string{"Intense", "Elixir", "Parfum", "Extreme", "Night"} {
		ps = append(ps, p(int64(10+i), "Line "+ed, "House", 8000-i, accords))
	}
	far := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "citrus", Strength: 100}}
	ps = append(ps, p(20, "Other", "Elsewhere", 5000, far), p(21, "Line Up", "Third House", 4000, far))
	ix := Build(ps, Options{})
	_, got, err := ix.Similar("house-line", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Line Intense", "Line Elixir", "Line Parfum", "Other", "Line Up"}
	if names := scoredNames(got); !slices.Equal(names, want) {
		t.Errorf("similar = %q, want %q", names, want)
	}
}

func TestSimilarCurated(t *testing.T) {
	ix := smallIndex()
	src, got, _ := ix.Similar("tom-ford-tobacco-vanille", 5)
	checkScored(t, "similar tobacco vanille", src, got, 5)
	libre := slices.IndexFunc(got, func(s Scored) bool { return s.Name() == "Libre" })
	if libre != 0 {
		t.Errorf("curated partner Libre not first: %q", scoredNames(got))
	}
	plain := Build(smallCatalogue(), Options{})
	_, base, _ := plain.Similar("tom-ford-tobacco-vanille", 5)
	i := slices.IndexFunc(base, func(s Scored) bool { return s.Name() == "Libre" })
	if i < 0 || !(got[libre].Score > base[i].Score) {
		t.Errorf("curation did not raise Libre: %v vs %v", got, base)
	}
}

func TestDupesSmall(t *testing.T) {
	ix := smallIndex()
	src, got, err := ix.Dupes("dior-sauvage", 10)
	if err != nil || len(got) == 0 || got[0].Name() != "Wild Man" {
		t.Fatalf("dupes of Sauvage = %q, %v", scoredNames(got), err)
	}
	checkScored(t, "dupes sauvage", src, got, 10)
	for _, s := range got {
		if !s.PriceTier().Known() || s.PriceTier().Rank() >= src.PriceTier().Rank() {
			t.Errorf("dupe %s of tier %q", s.Name(), s.PriceTier())
		}
	}
	if _, none, err := ix.Dupes("indie-house-mystery", 10); err != nil || none == nil || len(none) != 0 {
		t.Errorf("unknown tier: %v, %v", none, err)
	}
	if _, none, _ := ix.Dupes("budget-brand-wild-man", 10); len(none) != 0 {
		t.Errorf("nothing is cheaper than budget: %q", scoredNames(none))
	}
	if _, _, err := ix.Dupes("nope", 5); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown slug: %v", err)
	}
}

func TestMatchSmall(t *testing.T) {
	ix := smallIndex()
	tests := []struct {
		name  string
		q     MatchQuery
		want  []string
		total int
	}{
		{"accord", MatchQuery{Accords: []AccordWant{{"Vanilla", 100}}},
			[]string{"Libre", "Mystery", "Tobacco Vanille"}, 3},
		{"accord at 40 prefers about 40", MatchQuery{Accords: []AccordWant{{"woody", 40}}},
			[]string{"Tobacco Vanille", "Sauvage", "Terre d'Hermès"}, 7},
		{"gender filter", MatchQuery{Accords: []AccordWant{{"vanilla", 100}}, Gender: catalog.Feminine},
			[]string{"Libre"}, 1},
		{"season and time", MatchQuery{Accords: []AccordWant{{"vanilla", 100}}, Season: "winter", Time: "night"},
			[]string{"Mystery", "Tobacco Vanille"}, 2},
		{"note", MatchQuery{Notes: []string{"tonka bean"}}, []string{"Tobacco Vanille"}, 1},
		{"accord or note", MatchQuery{Accords: []AccordWant{{"tobacco", 100}}, Notes: []string{"vanilla"}},
			[]string{"Tobacco Vanille", "Libre", "Mystery"}, 3},
		{"filters only", MatchQuery{Season: "winter"}, []string{"Tobacco Vanille", "Mystery"}, 2},
		{"nothing", MatchQuery{Gender: catalog.Feminine, Season: "winter"}, []string{}, 0},
	}
	for _, tt := range tests {
		tt.q.Page, tt.q.Limit = 1, 3
		res, err := ix.Match(tt.q)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkScored(t, tt.name, nil, res.Items, 3)
		if got := scoredNames(res.Items); !slices.Equal(got, tt.want) || res.Total != tt.total {
			t.Errorf("%s: %q of %d, want %q of %d", tt.name, got, res.Total, tt.want, tt.total)
		}
	}
}

func TestMatchEchoAndPaging(t *testing.T) {
	ix := smallIndex()
	res, err := ix.Match(MatchQuery{Accords: []AccordWant{{"WOODY", 40}, {"woody", 90}}, Notes: []string{"vanilla", "VANILLA"}, Page: 3, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Accords, []AccordWant{{"woody", 40}}) || !slices.Equal(res.Notes, []string{"Vanilla"}) {
		t.Errorf("echo = %v %v", res.Accords, res.Notes)
	}
	if res.Total != 9 || res.Pages != 5 || res.Page != 3 || len(res.Items) != 2 {
		t.Errorf("paging = %d %d %d %d", res.Total, res.Pages, res.Page, len(res.Items))
	}
	past, _ := ix.Match(MatchQuery{Notes: []string{"vanilla"}, Page: 50, Limit: 2})
	if len(past.Items) != 0 || past.Items == nil || past.Total != 3 {
		t.Errorf("page past the end = %+v", past)
	}
}

func TestMatchErrors(t *testing.T) {
	ix := smallIndex()
	_, err := ix.Match(MatchQuery{Accords: []AccordWant{{"wody", 100}}, Notes: []string{"vanila", "zzzz"}, Gender: "other", Season: "monsoon", Time: "noon"})
	var pes catalog.ParamErrors
	if !errors.As(err, &pes) || !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	want := map[string]string{
		"gender":  `unknown gender "other"; use masculine, feminine or unisex`,
		"season":  `unknown season "monsoon"; use winter, spring, summer or fall`,
		"time":    `unknown time "noon"; use day or night`,
		"accords": `unknown accord "wody"; did you mean "woody"?`,
	}
	notes := 0
	for _, pe := range pes {
		if pe.Parameter == "notes" {
			notes++
			continue
		}
		if want[pe.Parameter] != pe.Message {
			t.Errorf("%s: %q, want %q", pe.Parameter, pe.Message, want[pe.Parameter])
		}
	}
	if notes != 2 || pes[len(pes)-2].Message != `unknown note "vanila"; did you mean "Vanilla"?` {
		t.Errorf("note errors: %v", pes)
	}
}

// TestSimilarAndDupes: the two lists at once are Similar's and Dupes's,
// for every 7th perfume of the real catalogue and limits either side of
// the line cap's second ranking, and both errors are ErrNotFound.
func TestSimilarAndDupes(t *testing.T) {
	ps, ref := realCatalogue(t)
	ix := Build(ps, Options{AccordColor: ref.Color})
	step := 7
	if testing.Short() || racedetect.Enabled {
		step = 389
	}
	for i := 0; i < len(ps); i += step {
		slug := ps[i].Slug
		for _, lim := range [][2]int{{6, 6}, {1, 20}, {20, 1}, {0, 6}, {6, 0}} {
			e, sim, dupes, err := ix.SimilarAndDupes(slug, lim[0], lim[1])
			if err != nil {
				t.Fatal(err)
			}
			_, wantSim, _ := ix.Similar(slug, lim[0])
			_, wantDupes, _ := ix.Dupes(slug, lim[1])
			if e.Slug() != slug || !slices.EqualFunc(sim, wantSim, sameScored) || !slices.EqualFunc(dupes, wantDupes, sameScored) {
				t.Fatalf("%s %v: got %v / %v, want %v / %v", slug, lim,
					scoredNames(sim), scoredNames(dupes), scoredNames(wantSim), scoredNames(wantDupes))
			}
		}
	}
	if _, _, _, err := ix.SimilarAndDupes("no-such-perfume", 6, 6); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown slug: %v", err)
	}
}

func sameScored(a, b Scored) bool {
	return a.Entry == b.Entry && a.Score == b.Score && slices.Equal(a.SharedAccords.Slice(), b.SharedAccords.Slice()) &&
		(a.SharedAccords.ids == nil) == (b.SharedAccords.ids == nil) && slices.Equal(a.SharedNotes, b.SharedNotes)
}
