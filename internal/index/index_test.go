package index

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

func entryNames(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out
}

func TestLookups(t *testing.T) {
	ix := smallIndex()
	if ix.Len() != 16 {
		t.Fatalf("Len = %d", ix.Len())
	}
	e, err := ix.Perfume("dior-sauvage")
	if err != nil || e.Name() != "Sauvage" {
		t.Fatalf("Perfume(dior-sauvage) = %v, %v", e, err)
	}
	if _, err := ix.Perfume("nope"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown slug: %v", err)
	}
	if e, ok := ix.ByID(9); !ok || e.Name() != "Tobacco Vanille" {
		t.Errorf("ByID(9) = %v, %v", e, ok)
	}
	if _, ok := ix.ByID(999); ok {
		t.Error("ByID(999) found something")
	}
}

func TestDerivedFields(t *testing.T) {
	ix := smallIndex()
	light, _ := ix.Perfume("dolce-and-gabbana-light-blue")
	if p := light.Popularity; p.Rank != 1 || p.RatingCount != 35000 || p.Score != 96.9 {
		t.Errorf("most rated popularity = %+v", p)
	}
	tv, _ := ix.Perfume("tom-ford-tobacco-vanille")
	sv, _ := ix.Perfume("dior-sauvage")
	if tv.Popularity.Rank != 2 || sv.Popularity.Rank != 2 || tv.Popularity.Score != sv.Popularity.Score {
		t.Errorf("equally rated perfumes must share rank and score: %+v %+v", tv.Popularity, sv.Popularity)
	}
	unrated, _ := ix.Perfume("indie-house-unrated")
	if p := unrated.Popularity; p.Rank != 16 || p.Score != 3.1 {
		t.Errorf("unrated popularity = %+v", p)
	}
	want := []Ranked{{"winter", 45}, {"fall", 35}, {"spring", 15}, {"summer", 5}}
	if got := tv.SeasonRanking(); !slices.Equal(got, want) {
		t.Errorf("season ranking = %v", got)
	}
	if got := tv.TimeRanking(); !slices.Equal(got, []Ranked{{"night", 70}, {"day", 30}}) {
		t.Errorf("time ranking = %v", got)
	}
	colors := map[string]string{}
	accords, _ := ix.Accords("", 100)
	for _, a := range accords {
		colors[a.Name] = a.Color
	}
	for i, c := range []string{DefaultAccordColor, DefaultAccordColor, "#774414"} {
		if got := colors[tv.Accords().At(i).Name]; got != c {
			t.Errorf("colour of %s = %q, want %q", tv.Accords().At(i).Name, got, c)
		}
	}
}

func TestPerfumesList(t *testing.T) {
	ix := smallIndex()
	pg := ix.Perfumes(ListQuery{Page: 1, Limit: 4})
	if got := entryNames(pg.Entries); !slices.Equal(got, []string{"Light Blue", "Sauvage", "Tobacco Vanille", "Terre d'Hermès"}) {
		t.Errorf("first page = %q", got)
	}
	if pg.Total != 16 || pg.Pages != 4 || pg.Page != 1 || pg.Limit != 4 {
		t.Errorf("paging = %+v", pg)
	}
	past := ix.Perfumes(ListQuery{Page: 9, Limit: 4})
	if len(past.Entries) != 0 || past.Total != 16 || past.Pages != 4 || past.Page != 9 {
		t.Errorf("page past the end = %+v", past)
	}
	far := ix.Perfumes(ListQuery{Q: "sauvage", Page: 1 << 40, Limit: 100})
	if len(far.Entries) != 0 || far.Total != 4 {
		t.Errorf("far page = %+v", far)
	}
	dior := ix.Perfumes(ListQuery{Brand: "dior", Page: 1, Limit: 10})
	if got := entryNames(dior.Entries); !slices.Equal(got, []string{"Sauvage", "Sauvage Elixir", "Sauvage Eau de Parfum", "Eau Sauvage"}) {
		t.Errorf("brand dior = %q", got)
	}
	if none := ix.Perfumes(ListQuery{Brand: "no-such-brand", Page: 1, Limit: 10}); none.Total != 0 || len(none.Entries) != 0 || none.Pages != 0 {
		t.Errorf("unknown brand = %+v", none)
	}
	if q := ix.Perfumes(ListQuery{Q: "eau", Brand: "dior", Page: 1, Limit: 10}); !slices.Equal(entryNames(q.Entries), []string{"Sauvage Eau de Parfum", "Eau Sauvage"}) {
		t.Errorf("q within brand = %q", entryNames(q.Entries))
	}
}

func TestPerfumesSearchSmall(t *testing.T) {
	ix := smallIndex()
	tests := []struct {
		q     string
		first string
		total int // -1: not checked
	}{
		{"hermes", "Terre d'Hermès", 3},
		{"HERMÈS twilly", "Twilly", -1},
		{"brit for her", "Brit: For Her", 2},
		{"dior sauvage", "Sauvage", -1},
		{"sauvage dior", "Sauvage", -1},
		{"tobacco van", "Tobacco Vanille", 1},
		{"tobaccovanille", "Tobacco Vanille", 1},
		{"savage", "Sauvage", 4},
		{"suavage", "Sauvage", 4},
		{"lightblue", "Light Blue", 1},
		{"light blu", "Light Blue", 1},
		{"one million", "1 Million", 1},
		{"paco rabanne", "1 Million", 1},
		{"d&g", "Light Blue", 1},
		{"sauvage edp", "Sauvage Eau de Parfum", 4},
		{"sauvage elixir", "Sauvage Elixir", 4},
		{"ysl libre", "Libre", 1},
		{"terre d'hermes parfum", "Terre d'Hermès Parfum", -1},
		{"sauvage perfume", "Sauvage", 4},
		{"sauvage for men", "Sauvage", 4},
		{"xyzzy", "", 0},
	}
	for _, tt := range tests {
		pg := ix.Perfumes(ListQuery{Q: tt.q, Page: 1, Limit: 10})
		first := ""
		if len(pg.Entries) > 0 {
			first = pg.Entries[0].Name()
		}
		if first != tt.first || (tt.total >= 0 && pg.Total != tt.total) {
			t.Errorf("%q: first %q of %d %q, want %q of %d", tt.q, first, pg.Total, entryNames(pg.Entries), tt.first, tt.total)
		}
	}
}

func TestCountLists(t *testing.T) {
	ix := smallIndex()
	brands := ix.Brands("")
	if brands[0] != (Count{Name: "Dior", Slug: "dior", Count: 4}) {
		t.Errorf("first brand = %+v", brands[0])
	}
	if brands[1] != (Count{Name: "Hermès", Slug: "hermes", Count: 3}) {
		t.Errorf("second brand = %+v (case variants share a slug, the most used spelling shows)", brands[1])
	}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"hermes", []string{"Hermès"}},
		{"ysl", []string{"Yves Saint Laurent"}},
		{"tom f", []string{"Tom Ford"}},
		{"d&g", []string{"Dolce&Gabbana"}},
		{"house", []string{"Indie House"}},
		{"zzz", nil},
	} {
		var got []string
		for _, c := range ix.Brands(tt.q) {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Brands(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	notes, total := ix.Notes(2)
	if total != 11 || len(notes) != 2 || notes[0].Name != "Ambroxan" || notes[0].Count != 5 {
		t.Errorf("Notes(2) = %+v, %d", notes, total)
	}
	if all, total := ix.Notes(0); len(all) != total {
		t.Errorf("Notes(0) gave %d of %d", len(all), total)
	}
	vanilla := slices.IndexFunc(ix.NoteNames(), func(n string) bool { return n == "Vanilla" })
	if vanilla < 0 {
		t.Errorf("Vanilla and vanilla should be one note named Vanilla: %q", ix.NoteNames())
	}
	accords, total := ix.Accords("wood", 10)
	if total != 1 || accords[0] != (Count{Name: "woody", Count: 7, Color: "#774414"}) {
		t.Errorf("Accords(wood) = %+v, %d", accords, total)
	}
	if _, total := ix.Accords("", 1); total != 6 {
		t.Errorf("accords total = %d", total)
	}
}

// TestBrandsByRatings: brands by their perfumes' rating counts summed
// (Dior's four before Hermès' three and Dolce&Gabbana's one), each with
// its number of perfumes; a limit keeps the first.
func TestBrandsByRatings(t *testing.T) {
	ix := smallIndex()
	var got []string
	for _, c := range ix.BrandsByRatings(0) {
		got = append(got, c.Name)
	}
	want := []string{"Dior", "Hermès", "Dolce&Gabbana", "Tom Ford", "Rabanne", "Yves Saint Laurent", "Burberry", "Budget Brand", "Indie House"}
	if !slices.Equal(got, want) {
		t.Errorf("BrandsByRatings(0) = %q, want %q", got, want)
	}
	if top := ix.BrandsByRatings(2); len(top) != 2 || top[1] != (Count{Name: "Hermès", Slug: "hermes", Count: 3}) {
		t.Errorf("BrandsByRatings(2) = %+v", top)
	}
	if all := ix.BrandsByRatings(100); len(all) != len(ix.Brands("")) {
		t.Errorf("BrandsByRatings(100) gave %d brands of %d", len(all), len(ix.Brands("")))
	}
}

func TestPerfumers(t *testing.T) {
	ix := smallIndex()
	ps := ix.Perfumers()
	if len(ps) != 3 || ps[0] != (Count{Name: "Olivier Gillotin", Slug: "olivier-gillotin", Count: 2}) {
		t.Errorf("Perfumers() = %+v", ps)
	}
	c, pg, err := ix.Perfumer("olivier-gillotin", 1, 1)
	if err != nil || c.Count != 2 || pg.Total != 2 || pg.Pages != 2 || entryNames(pg.Entries)[0] != "Tobacco Vanille" {
		t.Errorf("Perfumer = %+v %+v %v", c, pg, err)
	}
	if _, _, err := ix.Perfumer("nobody", 1, 10); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown perfumer: %v", err)
	}
}

func TestHolderSwap(t *testing.T) {
	a, b := smallIndex(), Build(smallCatalogue()[:5], Options{})
	h := NewHolder(a)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 2000 {
				ix := h.Load()
				// A reader sees one whole catalogue: its lists agree with
				// its length.
				if n := ix.Perfumes(ListQuery{Page: 1, Limit: 100}).Total; n != ix.Len() {
					t.Errorf("reader saw %d perfumes in an index of %d", n, ix.Len())
					return
				}
			}
		})
	}
	for i := range 200 {
		if i%2 == 0 {
			h.Store(b)
		} else {
			h.Store(a)
		}
	}
	wg.Wait()
	if h.Load() != a {
		t.Error("last store lost")
	}
}
