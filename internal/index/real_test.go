package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

// TestRealSearch runs the contract's examples against the bundled
// catalogue: want is "Name | Brand" of a perfume that must be among the
// first `within` results.
func TestRealSearch(t *testing.T) {
	ix := realIndex(t)
	tests := []struct {
		q      string
		want   string
		within int
	}{
		{"hermes", "Terre d'Hermès | Hermès", 1},
		{"brit for her", "Burberry Brit | Burberry", 1}, // the women's Brit; "for her" is weak
		{"dior sauvage", "Sauvage | Dior", 1},
		{"sauvage dior", "Sauvage | Dior", 1},
		{"Sauvage", "Sauvage | Dior", 1},
		{"tobacco van", "Tobacco Vanille | Tom Ford", 1},
		{"tobaccovanille", "Tobacco Vanille | Tom Ford", 1},
		{"tobaco vanile", "Tobacco Vanille | Tom Ford", 1},
		{"sauvag dior", "Sauvage | Dior", 1},
		{"suavage", "Sauvage | Dior", 5},
		{"baccarat rougge", "Baccarat Rouge 540 | Maison Francis Kurkdjian", 1},
		{"aventsu", "Aventus | Creed", 1},
		{"lightblue", "Light Blue | Dolce&Gabbana", 1},
		{"light blue", "Light Blue | Dolce&Gabbana", 1},
		{"d&g light blue", "Light Blue | Dolce&Gabbana", 1},
		{"one million", "1 Million | Rabanne", 1},
		{"paco rabanne 1 million", "1 Million | Rabanne", 1},
		{"sauvage edp", "Sauvage Eau de Parfum | Dior", 1},
		{"sauvage eau de parfum", "Sauvage Eau de Parfum | Dior", 1},
		{"bleu de chanel parfum", "Bleu de Chanel Parfum | Chanel", 1},
		{"bleu de chanel", "Bleu de Chanel | Chanel", 1},
		{"blue de chanel", "Bleu de Chanel | Chanel", 1},
		{"ysl libre", "Libre | Yves Saint Laurent", 1},
		{"mfk baccarat", "Baccarat Rouge 540 | Maison Francis Kurkdjian", 1},
		{"jpg le male", "Le Male | Jean Paul Gaultier", 1},
		{"gautier le male", "Le Male | Jean Paul Gaultier", 1},
		{"ck one", "CK One | Calvin Klein", 1},
		{"tf oud wood", "Oud Wood | Tom Ford", 1},
		{"pdm layton", "Layton | Parfums de Marly", 1},
		{"212", "212 | Carolina Herrera", 5},
		{"212 vip", "212 VIP | Carolina Herrera", 1},
		{"chanel no 5", "Chanel No 5 Parfum | Chanel", 3},
		{"no 5", "Chanel No 5 Parfum | Chanel", 3},
		{"n°5", "Chanel No 5 Parfum | Chanel", 3},
		{"sauvage perfume", "Sauvage | Dior", 3},
		{"sauvage for men", "Sauvage | Dior", 1},
		{"dior homme", "Dior Homme | Dior", 1},
		{"Terre d’Hermès", "Terre d'Hermès | Hermès", 1},
		{"la vie est belle", "La Vie Est Belle | Lancôme", 1},
		{"lancome", "La Vie Est Belle | Lancôme", 1},
	}
	for _, tt := range tests {
		pg := ix.Perfumes(ListQuery{Q: tt.q, Page: 1, Limit: tt.within})
		var got []string
		for _, e := range pg.Entries {
			got = append(got, e.Name()+" | "+e.Brand())
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("%q: %q not in the first %d: %q", tt.q, tt.want, tt.within, got)
		}
	}
}

func TestRealSearchRanksFullMatchesFirst(t *testing.T) {
	ix := realIndex(t)
	for _, q := range []string{"dior sauvage", "tobacco vanille", "light blue", "ysl libre", "xerjoff erba pura"} {
		pg := ix.Perfumes(ListQuery{Q: q, Page: 1, Limit: 100})
		words := strings.Fields(q)
		seenPartial := false
		for _, e := range pg.Entries {
			text := strings.ToLower(e.Name() + " " + e.Brand())
			all := true
			for _, w := range words {
				all = all && (strings.Contains(text, w) || (w == "ysl" && e.Brand() == "Yves Saint Laurent"))
			}
			if all && seenPartial {
				t.Errorf("%q: %q matches every word but ranks below a partial match", q, e.Name())
			}
			seenPartial = seenPartial || !all
		}
	}
}

func TestRealSearchMisses(t *testing.T) {
	ix := realIndex(t)
	for _, q := range []string{"xyzzy", "qqqqqqqqq zzzzzzz"} {
		if pg := ix.Perfumes(ListQuery{Q: q, Page: 1, Limit: 10}); pg.Total != 0 || len(pg.Entries) != 0 {
			t.Errorf("%q found %d", q, pg.Total)
		}
	}
}

func TestRealLists(t *testing.T) {
	ix := realIndex(t)
	if ix.Len() != 37490 {
		t.Errorf("Len = %d", ix.Len())
	}
	pg := ix.Perfumes(ListQuery{Page: 1, Limit: 3})
	if pg.Entries[0].Name() != "Light Blue" || pg.Total != 37490 || pg.Pages != 12497 {
		t.Errorf("most rated = %q, total %d pages %d", pg.Entries[0].Name(), pg.Total, pg.Pages)
	}
	brands := ix.Brands("")
	for i := 1; i < len(brands); i++ {
		if brands[i].Count > brands[i-1].Count {
			t.Fatalf("brands not by count at %d", i)
		}
	}
	guess := ix.Brands("guess")
	if len(guess) != 1 || guess[0].Name != "Guess" || guess[0].Count != 50 {
		t.Errorf("Guess/guess = %+v", guess)
	}
	if hermes := ix.Brands("hermes"); len(hermes) == 0 || hermes[0].Name != "Hermès" {
		t.Errorf("Brands(hermes) = %+v", hermes)
	}
	// The best known brands lead, not those with the most perfumes
	// (Zara, Avon, Bath & Body Works).
	known := ix.BrandsByRatings(10)
	if known[0].Name != "Dior" || slices.ContainsFunc(known, func(c Count) bool {
		return c.Name == "Zara" || c.Name == "Avon" || c.Name == "Bath & Body Works"
	}) {
		t.Errorf("BrandsByRatings(10) = %+v", known)
	}
	notes, total := ix.Notes(5)
	if len(notes) != 5 || total < 1000 || notes[0].Count < notes[4].Count {
		t.Errorf("Notes(5) = %+v of %d", notes, total)
	}
	accords, total := ix.Accords("", 100)
	if total != 90 || len(accords) != 90 || accords[0].Color == DefaultAccordColor {
		t.Errorf("accords: %d of %d, first %+v", len(accords), total, accords[0])
	}
}

// sampleSources picks perfumes spread over the catalogue, popular and not.
func sampleSources(ix *Index, n int) []*Entry {
	var out []*Entry
	step := len(ix.order) / n
	for i := 0; i < len(ix.order); i += step {
		out = append(out, &ix.entries[ix.order[i]])
	}
	return out
}

func TestRealSimilarInvariants(t *testing.T) {
	ix := realIndex(t)
	for _, src := range sampleSources(ix, 60) {
		e, got, err := ix.Similar(src.Slug(), 20)
		if err != nil {
			t.Fatal(err)
		}
		checkScored(t, "similar "+src.Slug(), e, got, 20)
		lines := map[uint64]int{}
		for _, s := range got {
			doc := ix.bySlug[s.Slug()]
			if lines[ix.line[doc]]++; lines[ix.line[doc]] > ranking.MaxPerLine {
				t.Errorf("similar %s: line of %s over %d", src.Slug(), s.Name(), ranking.MaxPerLine)
			}
		}
		_, dupes, err := ix.Dupes(src.Slug(), 50)
		if err != nil {
			t.Fatal(err)
		}
		checkScored(t, "dupes "+src.Slug(), e, dupes, 50)
		for _, d := range dupes {
			if !d.PriceTier().Known() || d.PriceTier().Rank() >= e.PriceTier().Rank() {
				t.Errorf("dupe %s (%s) of %s (%s)", d.Name(), d.PriceTier(), e.Name(), e.PriceTier())
			}
		}
		if !e.PriceTier().Known() && len(dupes) != 0 {
			t.Errorf("%s of unknown tier has dupes", e.Name())
		}
	}
}

func TestRealSimilarSauvage(t *testing.T) {
	ix := realIndex(t)
	_, got, _ := ix.Similar("dior-sauvage", 10)
	if len(got) != 10 || got[0].Score < 80 {
		t.Fatalf("similar to Sauvage: %v", scoredNames(got))
	}
	dior := 0
	for _, s := range got {
		if s.Brand() == "Dior" {
			dior++
		}
	}
	if dior > 4 {
		t.Errorf("Dior flankers crowd the list: %q", scoredNames(got))
	}
}

func TestRealMatch(t *testing.T) {
	ix := realIndex(t)
	res, err := ix.Match(MatchQuery{Accords: []AccordWant{{"woody", 100}, {"vanilla", 40}}, Notes: []string{"Tonka Bean"},
		Gender: catalog.Masculine, Season: "winter", Time: "night", Page: 1, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkScored(t, "match", nil, res.Items, 50)
	if res.Total == 0 || len(res.Items) != 50 {
		t.Fatalf("match found %d", res.Total)
	}
	for _, s := range res.Items {
		w := s.Seasons.Winter
		if s.Gender() != catalog.Masculine || s.DayNight.Night < 50 || w < s.Seasons.Spring || w < s.Seasons.Summer || w < s.Seasons.Fall {
			t.Errorf("%s fails the filters: %v %+v %+v", s.Name(), s.Gender(), s.Seasons, s.DayNight)
		}
		if !sharesWith(s.Perfume(), []string{"woody", "vanilla"}, "tonka bean") {
			t.Errorf("%s shares nothing with the profile", s.Name())
		}
	}
	only, _ := ix.Match(MatchQuery{Season: "summer", Time: "day", Page: 1, Limit: 20})
	for i := 1; i < len(only.Items); i++ {
		if only.Items[i].Score > only.Items[i-1].Score {
			t.Errorf("filters-only not by fit at %d", i)
		}
	}
}

// sharesWith reports whether p has one of the accords or the note (folded
// to lower case).
func sharesWith(p catalog.Perfume, accords []string, note string) bool {
	for _, a := range p.Accords {
		if slices.Contains(accords, strings.ToLower(a.Name)) {
			return true
		}
	}
	n := p.Notes
	for _, layer := range [][]string{n.Top, n.Middle, n.Base, n.Unplaced} {
		for _, x := range layer {
			if strings.EqualFold(x, note) {
				return true
			}
		}
	}
	return false
}
