package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// matchCatalogue is perfumes alike in all but what a test varies: the
// strength of woody, and whether vanilla is a note.
func matchCatalogue() []catalog.Perfume {
	p := func(id int64, name string, ratings int, woody float64, vanilla bool) catalog.Perfume {
		e := catalog.Perfume{ID: id, Name: name, Brand: "House", Slug: "house-" + slug(name), Gender: catalog.Unisex,
			RatingCount: ratings, PriceTier: catalog.TierPremium,
			Seasons: catalog.Seasons{Winter: 40, Spring: 20, Summer: 10, Fall: 30}, DayNight: catalog.DayNight{Day: 40, Night: 60}}
		e.Accords = []catalog.AccordStrength{{Name: "amber", Strength: 100}}
		if woody > 0 {
			e.Accords = append(e.Accords, catalog.AccordStrength{Name: "woody", Strength: woody})
		}
		e.Notes.Base = []string{"Cedar"}
		if vanilla {
			e.Notes.Base = append(e.Notes.Base, "Vanilla")
		}
		return e
	}
	return []catalog.Perfume{
		p(1, "Dominant", 50000, 100, false), // the most rated: ties would go to it
		p(2, "Around Forty", 100, 42, false),
		p(3, "Seventy", 5000, 70, false),
		p(4, "Vanilla Only", 3000, 0, true),
		p(5, "Both", 10, 100, true),
		p(6, "Neither", 90000, 0, false),
	}
}

// TestMatchStrength: an accord asked at 40 ranks the perfume where it is
// about 40 above the one where it dominates, though the latter is far more
// rated; asked at 100 (the default), the order turns round.
func TestMatchStrength(t *testing.T) {
	ix := Build(matchCatalogue(), Options{})
	tests := []struct {
		strength float64
		want     []string
	}{
		{40, []string{"Around Forty", "Seventy", "Dominant", "Both"}},
		{100, []string{"Dominant", "Both", "Seventy", "Around Forty"}},
	}
	for _, tt := range tests {
		res, err := ix.Match(MatchQuery{Accords: []AccordWant{{"woody", tt.strength}}, Page: 1, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		checkScored(t, "match woody", nil, res.Items, 10)
		if got := scoredNames(res.Items); !slices.Equal(got, tt.want) {
			t.Errorf("woody:%v = %q, want %q", tt.strength, got, tt.want)
		}
	}
}

// TestMatchCombinesAccordsAndNotes: every accord and note asked weighs the
// same; a perfume needs one of them to appear, and scores the mean of its
// accord fits and notes had.
func TestMatchCombinesAccordsAndNotes(t *testing.T) {
	ix := Build(matchCatalogue(), Options{})
	res, err := ix.Match(MatchQuery{Accords: []AccordWant{{"woody", 100}}, Notes: []string{"vanilla"}, Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range res.Items {
		got[s.Name()] = s.Score
	}
	want := map[string]float64{
		"Both":         100,  // woody at 100 and the note
		"Dominant":     50,   // woody at 100, no vanilla
		"Vanilla Only": 50,   // the note, no woody
		"Seventy":      42.5, // (1 − 30/200) / 2
		"Around Forty": 35.5, // (1 − 58/200) / 2
	}
	if len(got) != len(want) || res.Total != len(want) {
		t.Fatalf("match = %v (total %d), want %v", got, res.Total, want)
	}
	for name, score := range want {
		if got[name] != score {
			t.Errorf("%s scores %v, want %v", name, got[name], score)
		}
	}
	if res.Items[0].Name() != "Both" || res.Items[1].Name() != "Dominant" || res.Items[2].Name() != "Vanilla Only" {
		t.Errorf("order %q: equal scores must go to the more rated", scoredNames(res.Items))
	}
}

// TestMatchRandomMatchesReference compares Match with refMatch (every
// perfume scored the obvious way, all sorted) on generated queries over
// the real catalogue: up to four accords at any strength (out of range
// too, where fits go negative), common and rare notes (rare ones leave
// most blocks of postings sparse), any filters, pages 1–3 and limits
// 1–50, and no wishes at all. Items, scores, order and Total must be the
// same.
func TestMatchRandomMatchesReference(t *testing.T) {
	ix := realIndex(t)
	accs, notes := ix.AccordNames(), ix.NoteNames()
	rng := rand.New(rand.NewPCG(19, 7))
	pick := func(names []string, common bool) string {
		if common { // the most used first: their postings are long
			return names[rng.IntN(min(20, len(names)))]
		}
		return names[rng.IntN(len(names))]
	}
	strengths := []float64{100, 100, 0, 1, 40, 50, 99.5, -50, 250}
	genders := []catalog.Gender{"", "", "masculine", "feminine", "unisex"}
	seasons := []string{"", "", "winter", "spring", "summer", "fall"}
	times := []string{"", "", "day", "night"}
	n := 400
	if testing.Short() || racedetect.Enabled {
		n = 60
	}
	for i := range n {
		q := MatchQuery{Gender: genders[rng.IntN(len(genders))], Season: seasons[rng.IntN(len(seasons))],
			Time: times[rng.IntN(len(times))], Page: 1 + rng.IntN(3), Limit: 1 + rng.IntN(50)}
		for range rng.IntN(5) {
			st := strengths[rng.IntN(len(strengths))]
			if rng.IntN(2) == 0 {
				st = float64(rng.IntN(101))
			}
			q.Accords = append(q.Accords, AccordWant{pick(accs, rng.IntN(3) > 0), st})
		}
		for range rng.IntN(4) {
			q.Notes = append(q.Notes, pick(notes, rng.IntN(2) == 0))
		}
		if i%10 == 0 { // filters alone
			q.Accords, q.Notes = nil, nil
		}
		got, gerr := ix.Match(q)
		want, werr := refMatch(ix, q)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("Match(%+v) = %q of %d, %v\nwant %q of %d, %v", q,
				scoredNames(got.Items), got.Total, gerr, scoredNames(want.Items), want.Total, werr)
		}
	}
}

// TestMatchPruningMatchesReference stresses what matchWishes skips
// scoring: deep pages (a low floor), filters few perfumes pass, wanted
// strengths at the ends of the bands, one wish, notes alone and many
// wishes, mostly of the commonest accords and notes (those with
// bitmaps), on the real catalogue and on one of copies of it, whose
// equal scores leave every tie to the popularity order.
func TestMatchPruningMatchesReference(t *testing.T) {
	ixs := []*Index{realIndex(t)}
	if !testing.Short() && !racedetect.Enabled {
		_, ref := realCatalogue(t)
		ixs = append(ixs, Build(scaledCatalogue(t, 90_000), Options{AccordColor: ref.Color}))
	}
	for _, ix := range ixs {
		accs, _ := ix.Accords("", 30)
		notes, _ := ix.Notes(40)
		rng := rand.New(rand.NewPCG(3, uint64(ix.Len())))
		strengths := []float64{0, 40, 100, 100, 29, 30, 79.5, 80, 90, 99.6}
		genders := []catalog.Gender{"", "masculine", "feminine", "unisex"}
		seasons := []string{"", "winter", "spring", "summer", "fall"}
		times := []string{"", "day", "night"}
		pages := [][2]int{{1, 20}, {1, 1}, {5, 50}, {3, 37}, {1, 200}, {40, 50}}
		n := 150
		if testing.Short() || racedetect.Enabled {
			n = 30
		}
		for i := range n {
			pg := pages[rng.IntN(len(pages))]
			q := MatchQuery{Page: pg[0], Limit: pg[1]}
			if i%3 == 0 { // filters most perfumes fail
				q.Gender, q.Season, q.Time = genders[1+rng.IntN(3)], seasons[1+rng.IntN(4)], times[1+rng.IntN(2)]
			} else if i%3 == 1 {
				q.Gender, q.Season = genders[rng.IntN(4)], seasons[rng.IntN(5)]
			}
			var nAcc, nNote int
			switch i % 5 {
			case 0: // one accord
				nAcc = 1
			case 1: // notes only
				nNote = 1 + rng.IntN(3)
			case 2: // many wishes
				nAcc, nNote = 4+rng.IntN(4), rng.IntN(3)
			default:
				nAcc, nNote = 1+rng.IntN(3), rng.IntN(2)
			}
			for range nAcc {
				q.Accords = append(q.Accords, AccordWant{accs[rng.IntN(len(accs))].Name, strengths[rng.IntN(len(strengths))]})
			}
			for range nNote {
				q.Notes = append(q.Notes, notes[rng.IntN(len(notes))].Name)
			}
			got, gerr := ix.Match(q)
			want, werr := refMatch(ix, q)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%d perfumes: Match(%+v) = %q of %d, %v\nwant %q of %d, %v", ix.Len(), q,
					scoredNames(got.Items), got.Total, gerr, scoredNames(want.Items), want.Total, werr)
			}
		}
	}
}
