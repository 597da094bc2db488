package index

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/racedetect"
	"github.com/fragrance-data/fragrance/internal/search"
)

// passes is the brute-force reading of a browse query's filters on one
// perfume, from its own data.
func passes(e *Entry, q BrowseQuery) bool {
	if len(q.Genders) > 0 && !slices.Contains(q.Genders, e.Gender()) {
		return false
	}
	if q.Brand != "" && e.BrandSlug() != q.Brand {
		return false
	}
	if q.Perfumer != "" && !slices.ContainsFunc(e.Perfumers().Slice(), func(name string) bool { return slugKey(name) == q.Perfumer }) {
		return false
	}
	f := foldedOf(e)
	accs, notes := f.accs, f.notes
	for _, a := range q.Accords {
		if !accs[search.Fold(a)] {
			return false
		}
	}
	for _, a := range q.NotAccords {
		if accs[search.Fold(a)] {
			return false
		}
	}
	for _, x := range q.Notes {
		if !notes[search.Fold(x)] {
			return false
		}
	}
	for _, x := range q.NotNotes {
		if notes[search.Fold(x)] {
			return false
		}
	}
	if q.Season != "" {
		s := e.Seasons
		v := map[string]float64{"winter": s.Winter, "spring": s.Spring, "summer": s.Summer, "fall": s.Fall}
		top := max(s.Winter, s.Spring, s.Summer, s.Fall)
		if v[q.Season] != top || top <= 0 {
			return false
		}
	}
	switch q.Time {
	case "day":
		if e.DayNight.Day <= 0 || e.DayNight.Day < e.DayNight.Night {
			return false
		}
	case "night":
		if e.DayNight.Night <= 0 || e.DayNight.Night < e.DayNight.Day {
			return false
		}
	}
	if !q.Years.Any() && (e.Year == 0 || (q.Years.From != 0 && e.Year < q.Years.From) || (q.Years.To != 0 && e.Year > q.Years.To)) {
		return false
	}
	return e.Rating >= q.MinRating
}

// foldedSets is one perfume's accords and notes, folded, from its own
// data, as passes and bruteFacets read them.
type foldedSets struct{ accs, notes map[string]bool }

// folded holds each entry's foldedSets (*Entry → *foldedSets): the brute
// force reads every perfume of the catalogue for every query, so each
// perfume's names are folded once, not once per query.
var folded sync.Map

func foldedOf(e *Entry) *foldedSets {
	if f, ok := folded.Load(e); ok {
		return f.(*foldedSets)
	}
	f := &foldedSets{accs: map[string]bool{}, notes: map[string]bool{}}
	for i := range e.Accords().Len() {
		f.accs[search.Fold(e.Accords().At(i).Name)] = true
	}
	n := e.Notes()
	for _, layer := range []Names{n.Top, n.Middle, n.Base, n.Unplaced} {
		for i := range layer.Len() {
			f.notes[search.Fold(layer.At(i))] = true
		}
	}
	got, _ := folded.LoadOrStore(e, f)
	return got.(*foldedSets)
}

// sortsBefore reports whether a may come before b in the sort: the
// answer's order must never put a perfume after one it sorts before.
func sortsBefore(ix *Index, sort string, a, b *Entry) bool {
	prior := ix.browse.prior()
	switch sort {
	case SortRating:
		return ranking.WeightedRating(a.Rating, a.RatingCount, prior) >= ranking.WeightedRating(b.Rating, b.RatingCount, prior)
	case SortNewest:
		return b.Year == 0 || (a.Year != 0 && a.Year >= b.Year)
	case SortOldest:
		return b.Year == 0 || (a.Year != 0 && a.Year <= b.Year)
	case SortName:
		return search.Fold(a.Name()) <= search.Fold(b.Name())
	}
	return a.RatingCount >= b.RatingCount
}

// checkBrowse walks every page of q and holds it to the brute force: the
// exact total, every item passing, no item twice, every passing perfume
// listed, and the sort kept across page boundaries.
func checkBrowse(t *testing.T, ix *Index, q BrowseQuery) {
	t.Helper()
	want := 0
	for i := range ix.entries {
		if passes(&ix.entries[i], q) {
			want++
		}
	}
	q.Limit = 100
	var all []*Entry
	for page := 1; ; page++ {
		q.Page = page
		res, err := ix.Browse(q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if res.Total != want {
			t.Fatalf("%+v: total %d, brute force counts %d", q, res.Total, want)
		}
		if len(res.Entries) == 0 {
			break
		}
		all = append(all, res.Entries...)
	}
	if len(all) != want {
		t.Fatalf("%+v: pages list %d perfumes, total %d", q, len(all), want)
	}
	seen := map[*Entry]bool{}
	for i, e := range all {
		if !passes(e, q) {
			t.Fatalf("%+v: %s fails the filters", q, e.Slug())
		}
		if seen[e] {
			t.Fatalf("%+v: %s listed twice", q, e.Slug())
		}
		seen[e] = true
		if i > 0 && !sortsBefore(ix, cmp.Or(q.Sort, SortPopular), all[i-1], e) {
			t.Fatalf("%+v: %s listed before %s against the sort", q, all[i-1].Slug(), e.Slug())
		}
	}
}

func TestBrowseFiltersAndSortsMatchBruteForce(t *testing.T) {
	ix := realIndex(t)
	cases := []BrowseQuery{
		{Genders: []catalog.Gender{catalog.Feminine}, Season: "summer", Sort: SortRating},
		{Genders: []catalog.Gender{catalog.Masculine, catalog.Unisex}, Accords: []string{"woody", "Vanilla"}, Sort: SortNewest},
		{Accords: []string{"citrus", "-"}, NotAccords: []string{"sweet"}, Time: "day", Sort: SortName},
		{Notes: []string{"Rose"}, NotNotes: []string{"Vanilla"}, Years: YearRange{From: 2010, To: 2020}, Sort: SortOldest},
		{Years: YearRange{To: 1960}, MinRating: 4},
		{Years: YearRange{From: 2024}, Season: "winter", Time: "night"},
		{Years: YearRange{From: 1999, To: 1999}, Genders: []catalog.Gender{catalog.Unisex}},
		{Brand: "dior", Accords: []string{"fresh spicy"}, Sort: SortRating},
		{Brand: "chanel", Sort: SortNewest, MinRating: 3.9},
		{Notes: []string{"Oud", "Saffron", "Rose"}, Accords: []string{"oud"}},
		{NotAccords: []string{"woody", "citrus", "sweet"}, Sort: SortPopular},
		{MinRating: 4.5, Sort: SortRating},
		{Perfumer: "francois-demachy", Genders: []catalog.Gender{catalog.Masculine}, Sort: SortNewest},
		{Perfumer: "alberto-morillas", Accords: []string{"fresh"}, Season: "summer"},
		{Perfumer: "no-such-perfumer"},
	}
	for i := range cases {
		cases[i].Accords = slices.DeleteFunc(cases[i].Accords, func(s string) bool { return s == "-" })
	}
	for _, q := range cases {
		checkBrowse(t, ix, q)
	}
}

// TestBrowseRandomCombinations draws queries from perfumes of the
// catalogue (their gender, accords, notes, season, year), so every one
// finds something, and holds each to the brute force.
func TestBrowseRandomCombinations(t *testing.T) {
	ix := realIndex(t)
	rng := rand.New(rand.NewPCG(7, 41))
	n := 40
	if testing.Short() || racedetect.Enabled {
		n = 8
	}
	for range n {
		e := &ix.entries[rng.IntN(len(ix.entries))]
		var q BrowseQuery
		if rng.IntN(2) == 0 {
			q.Genders = []catalog.Gender{e.Gender()}
		}
		if a := e.Accords(); a.Len() > 0 && rng.IntN(2) == 0 {
			q.Accords = []string{a.At(rng.IntN(a.Len())).Name}
		}
		if ns := e.Notes().Base; ns.Len() > 0 && rng.IntN(2) == 0 {
			q.Notes = []string{ns.At(0)}
		}
		if rng.IntN(3) == 0 {
			q.NotAccords = []string{ix.accordName[rng.IntN(len(ix.accordName))]}
		}
		if r := e.SeasonRanking(); rng.IntN(3) == 0 && r[0].Score > 0 {
			q.Season = r[0].Name
		}
		if rng.IntN(3) == 0 {
			q.Time = []string{"day", "night"}[rng.IntN(2)]
		}
		if e.Year != 0 && rng.IntN(3) == 0 {
			q.Years = YearRange{From: e.Year - rng.IntN(5), To: e.Year + rng.IntN(5)}
		}
		if rng.IntN(4) == 0 {
			q.MinRating = float64(rng.IntN(40)) / 10
		}
		q.Sort = Sorts[rng.IntN(len(Sorts))]
		checkBrowse(t, ix, q)
	}
}

func TestBrowseWithoutFiltersListsAsPerfumes(t *testing.T) {
	ix := realIndex(t)
	for _, q := range []ListQuery{{Page: 1, Limit: 20}, {Page: 7, Limit: 100}, {Brand: "dior", Page: 2, Limit: 30}, {Brand: "no-such-brand", Page: 1, Limit: 5},
		{Q: "sauvage dior", Page: 1, Limit: 10}, {Q: "rose", Brand: "chanel", Page: 2, Limit: 10}} {
		want := ix.Perfumes(q)
		got, err := ix.Browse(BrowseQuery{Q: q.Q, Brand: q.Brand, Page: q.Page, Limit: q.Limit})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(pageSlugs(got.Page)) != fmt.Sprint(pageSlugs(want)) || got.Total != want.Total || got.Pages != want.Pages {
			t.Errorf("%+v: browse %v (%d), perfumes %v (%d)", q, pageSlugs(got.Page), got.Total, pageSlugs(want), want.Total)
		}
	}
}

func pageSlugs(p Page) []string {
	out := []string{}
	for _, e := range p.Entries {
		out = append(out, e.Slug())
	}
	return out
}

func TestBrowseTextWithFilters(t *testing.T) {
	ix := realIndex(t)
	q := BrowseQuery{Q: "rose", Genders: []catalog.Gender{catalog.Feminine}, Page: 1, Limit: 50}
	rel, err := ix.Browse(q)
	if err != nil {
		t.Fatal(err)
	}
	every := ix.Perfumes(ListQuery{Q: "rose", Page: 1, Limit: 100})
	if rel.Total == 0 || rel.Total >= every.Total {
		t.Fatalf("rose and feminine: %d of %d", rel.Total, every.Total)
	}
	for _, e := range rel.Entries {
		if e.Gender() != catalog.Feminine {
			t.Errorf("%s is %s", e.Slug(), e.Gender())
		}
	}
	q.Sort = SortNewest
	byYear, err := ix.Browse(q)
	if err != nil {
		t.Fatal(err)
	}
	if byYear.Total != rel.Total {
		t.Errorf("sorted by year: total %d, by relevance %d", byYear.Total, rel.Total)
	}
	for i := 1; i < len(byYear.Entries); i++ {
		if !sortsBefore(ix, SortNewest, byYear.Entries[i-1], byYear.Entries[i]) {
			t.Errorf("not newest first at %d", i)
		}
	}
}

// TestBrowseFacetsCountTheFilteredSet counts every facet by brute force
// over the filtered set, for sets small and large (the ways the accords
// and notes are counted: the set's documents, its complement's, bitmaps
// and postings, and for sets of gender, season and time alone the sums
// of the counts made with the index).
func TestBrowseFacetsCountTheFilteredSet(t *testing.T) {
	ix := realIndex(t)
	for _, q := range []BrowseQuery{
		{},
		{Genders: []catalog.Gender{catalog.Feminine}},
		{Accords: []string{"woody"}, Time: "night"},
		{Notes: []string{"Oud", "Saffron"}, Years: YearRange{From: 2015}},
		{Brand: "guerlain"},
		{Q: "vanilla", Sort: SortRating},
		{NotAccords: []string{"oud"}},
		{Genders: []catalog.Gender{catalog.Masculine, catalog.Feminine}, Years: YearRange{From: 1950}},
		{Season: "summer", Time: "day"},
		{Genders: []catalog.Gender{catalog.Unisex, catalog.Masculine}, Time: "night", Sort: SortName},
		{Genders: []catalog.Gender{catalog.Feminine}, Season: "winter"},
		{Time: "night"},
	} {
		q.Facets = FacetNames
		q.Page, q.Limit = 1, 10
		res, err := ix.Browse(q)
		if err != nil {
			t.Fatal(err)
		}
		set := map[*Entry]bool{}
		if q.Q != "" {
			for p := 1; ; p++ {
				pg, _ := ix.Browse(BrowseQuery{Q: q.Q, Sort: q.Sort, Page: p, Limit: 100})
				if len(pg.Entries) == 0 {
					break
				}
				for _, e := range pg.Entries {
					set[e] = true
				}
			}
		} else {
			for i := range ix.entries {
				if passes(&ix.entries[i], q) {
					set[&ix.entries[i]] = true
				}
			}
		}
		want := bruteFacets(set)
		f := res.Facets
		for name, got := range map[string][]FacetCount{"gender": f.Gender, "season": f.Season, "time": f.Time, "year": f.Year, "accords": f.Accords, "notes": f.Notes} {
			w := want[name]
			if name == "accords" || name == "notes" {
				w = topValues(w)
				got = slices.Clone(got)
				for i := range got {
					got[i].Value = search.Fold(got[i].Value)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%+v facet %s:\n got %v\nwant %v", q, name, got, w)
			}
		}
	}
}

func bruteFacets(set map[*Entry]bool) map[string][]FacetCount {
	counts := map[string]map[string]int{"gender": {}, "season": {}, "time": {}, "year": {}, "accords": {}, "notes": {}}
	for e := range set {
		counts["gender"][string(e.Gender())]++
		s := e.Seasons
		top := max(s.Winter, s.Spring, s.Summer, s.Fall)
		for name, v := range map[string]float64{"winter": s.Winter, "spring": s.Spring, "summer": s.Summer, "fall": s.Fall} {
			if v == top && v > 0 {
				counts["season"][name]++
			}
		}
		d, nt := e.DayNight.Day, e.DayNight.Night
		if d > 0 && d >= nt {
			counts["time"]["day"]++
		}
		if nt > 0 && nt >= d {
			counts["time"]["night"]++
		}
		if e.Year != 0 {
			counts["year"][strconv.Itoa(e.Year)]++
		}
		f := foldedOf(e)
		for k := range f.accs {
			counts["accords"][k]++
		}
		for k := range f.notes {
			counts["notes"][k]++
		}
	}
	fixed := func(name string, values []string) []FacetCount {
		out := []FacetCount{}
		for _, v := range values {
			out = append(out, FacetCount{v, counts[name][v]})
		}
		return out
	}
	out := map[string][]FacetCount{
		"gender": fixed("gender", browseGenders), "season": fixed("season", browseSeasons), "time": fixed("time", browseTimes),
	}
	for _, name := range []string{"year", "accords", "notes"} {
		l := []FacetCount{}
		for v, c := range counts[name] {
			l = append(l, FacetCount{v, c})
		}
		out[name] = l
	}
	slices.SortFunc(out["year"], func(a, b FacetCount) int { return strings.Compare(a.Value, b.Value) })
	return out
}

// topValues sorts folded accord or note counts as the facet lists them
// and keeps the first FacetValues; the names are compared folded.
func topValues(l []FacetCount) []FacetCount {
	slices.SortFunc(l, func(a, b FacetCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return l[:min(len(l), FacetValues)]
}

func TestBrowseLookupKeepsTheAskedOrder(t *testing.T) {
	ix := realIndex(t)
	res, err := ix.Browse(BrowseQuery{IDs: []string{"creed-aventus", "no-such-perfume", "dior-sauvage", "creed-aventus", "another-missing"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := pageSlugs(res.Page); fmt.Sprint(got) != "[creed-aventus dior-sauvage]" {
		t.Errorf("found %v", got)
	}
	if fmt.Sprint(res.Missing) != "[no-such-perfume another-missing]" || res.Total != 2 || res.Pages != 1 {
		t.Errorf("missing %v, total %d, pages %d", res.Missing, res.Total, res.Pages)
	}
}

func TestBrowseRefusesUnknownValues(t *testing.T) {
	ix := realIndex(t)
	_, err := ix.Browse(BrowseQuery{Genders: []catalog.Gender{"femenine"}, Season: "autumn", Time: "noon", Sort: "ratng",
		Facets: []string{"colour"}, Accords: []string{"wodoy"}, NotNotes: []string{"vanillla"}, MinRating: 6, Years: YearRange{From: 2020, To: 2010}})
	var pe catalog.ParamErrors
	if !errors.As(err, &pe) {
		t.Fatalf("error %v", err)
	}
	got := map[string]string{}
	for _, e := range pe {
		got[e.Parameter] += e.Message + "|"
	}
	for param, part := range map[string]string{
		"gender": `did you mean "feminine"`, "season": "use winter, spring, summer or fall", "time": `unknown time "noon"`,
		"sort": `did you mean "rating"`, "facets": `unknown facet "colour"`, "accords": `did you mean "woody"`,
		"notes": `did you mean "Vanilla"`, "minRating": "from 0 to 5", "year": "starts (2020) after it ends (2010)",
	} {
		if !strings.Contains(got[param], part) {
			t.Errorf("%s: %q lacks %q", param, got[param], part)
		}
	}
}

// TestBrowseFacetsKeptForTheSetsOtherPagesAndSorts asks a set's facets a
// few at a time, on other pages and sorts and with its names in another
// order, and holds every answer to a count made afresh: the memo answers
// by the set, adds the facets it lacked, and hands each caller its own
// Facets to change.
func TestBrowseFacetsKeptForTheSetsOtherPagesAndSorts(t *testing.T) {
	ix := realIndex(t)
	fresh := func(q BrowseQuery) *Facets {
		t.Helper()
		ix.browse.memo.reset()
		res, err := ix.Browse(q)
		if err != nil {
			t.Fatal(err)
		}
		ix.browse.memo.reset()
		return res.Facets
	}
	base := BrowseQuery{Genders: []catalog.Gender{catalog.Feminine, catalog.Unisex}, Accords: []string{"woody", "citrus"}, NotNotes: []string{"Vanilla"}, Years: YearRange{From: 1990}, Page: 1, Limit: 10}
	other := base
	other.Genders = []catalog.Gender{catalog.Unisex, catalog.Feminine}
	other.Accords = []string{"Citrus", "woody"}
	for _, q := range []BrowseQuery{base, {Q: "rose", Notes: []string{"Oud"}}, {Brand: "dior", MinRating: 3.5}} {
		every := q
		every.Facets = FacetNames
		want := fresh(every)
		for i, ask := range [][]string{{FacetAccords}, {FacetYear, FacetGender}, FacetNames, {FacetNotes}} {
			asked := q
			if q.Accords != nil && i%2 == 1 {
				asked = other
			}
			asked.Facets, asked.Page, asked.Sort = ask, 1+i, Sorts[i%len(Sorts)]
			res, err := ix.Browse(asked)
			if err != nil {
				t.Fatal(err)
			}
			w := (memoFacets{f: *want, mask: maskOf(FacetNames)}).answer(maskOf(ask))
			if !reflect.DeepEqual(res.Facets, w) {
				t.Errorf("%+v: facets %+v, counted afresh %+v", asked, res.Facets, w)
			}
			res.Facets.Gender, res.Facets.Accords = nil, nil
		}
	}
	dior, _ := ix.Browse(BrowseQuery{Brand: "dior", Facets: []string{FacetGender}})
	chanel, _ := ix.Browse(BrowseQuery{Brand: "chanel", Facets: []string{FacetGender}})
	if reflect.DeepEqual(dior.Facets, chanel.Facets) {
		t.Errorf("dior and chanel have the same gender counts: %+v", dior.Facets)
	}
	rose, _ := ix.Browse(BrowseQuery{Q: "rose", Facets: []string{FacetGender}})
	if reflect.DeepEqual(rose.Facets, fresh(BrowseQuery{Q: "vanilla", Facets: []string{FacetGender}})) {
		t.Errorf("rose and vanilla have the same gender counts: %+v", rose.Facets)
	}
}

// TestFacetMemoStaysBounded puts many more sets than the memo keeps and
// finds it within its two generations, the set used last still there.
func TestFacetMemoStaysBounded(t *testing.T) {
	var m facetMemo
	for i := range 5 * facetMemoSets {
		m.put(fmt.Sprint(i), memoFacets{mask: 1})
		if m.get("0").mask == 0 {
			t.Fatalf("after %d sets the set used at every step is gone", i)
		}
	}
	if n := len(m.cur) + len(m.prev); n > 2*facetMemoSets {
		t.Errorf("the memo holds %d sets, more than %d", n, 2*facetMemoSets)
	}
	if m.get("1").mask != 0 {
		t.Errorf("a set put once, long ago, is still kept")
	}
}

// TestBrowseFacetsFromManyCallersAtOnce has callers ask overlapping sets
// for different facets at the same time and holds every answer to the
// set's count made alone: callers adding facets to one set together may
// count some twice, never keep a wrong one.
func TestBrowseFacetsFromManyCallersAtOnce(t *testing.T) {
	ix := realIndex(t)
	sets := []BrowseQuery{
		{Genders: []catalog.Gender{catalog.Feminine}},
		{Accords: []string{"woody"}, Time: "night"},
		{Brand: "guerlain", Sort: SortNewest},
		{Q: "vanilla"},
	}
	want := make([]*Facets, len(sets))
	for i, q := range sets {
		ix.browse.memo.reset()
		q.Facets = FacetNames
		res, err := ix.Browse(q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.Facets
	}
	ix.browse.memo.reset()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 24 {
				s := (g + i) % len(sets)
				q := sets[s]
				q.Facets, q.Page = []string{FacetNames[(g+i)%len(FacetNames)], FacetNames[(g+2*i)%len(FacetNames)]}, 1+i%3
				res, err := ix.Browse(q)
				if err != nil {
					t.Error(err)
					return
				}
				w := (memoFacets{f: *want[s], mask: maskOf(FacetNames)}).answer(maskOf(q.Facets))
				if !reflect.DeepEqual(res.Facets, w) {
					t.Errorf("%+v: facets %+v, counted alone %+v", q, res.Facets, w)
				}
			}
		})
	}
	wg.Wait()
}
