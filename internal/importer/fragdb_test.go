package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

func TestReadFragDBSamples(t *testing.T) {
	res, err := New(fakeTiers{"Dolce&Gabbana": catalog.TierPremium}).ReadFragDB("testdata/fragdb")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Perfumes) != 10 || len(res.Rejected) != 0 {
		t.Fatalf("got %d perfumes, rejected %v", len(res.Perfumes), res.Rejected)
	}
	// The samples' lookup files hold only ten rows each, so most accord and
	// note ids cannot be resolved.
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], "accords.csv") {
		t.Errorf("warnings: %q", res.Warnings)
	}
	lb := res.Perfumes[0]
	checks := []struct {
		field     string
		got, want any
	}{
		{"id", lb.ID, int64(485)},
		{"slug", lb.Slug, "dolce-and-gabbana-light-blue"},
		{"brand", lb.Brand, "Dolce&Gabbana"},
		{"tier", lb.PriceTier, catalog.TierPremium},
		{"gender", lb.Gender, catalog.Feminine},
		{"year", lb.Year, 2001},
		{"rating", lb.Rating, 3.86},
		{"ratingCount", lb.RatingCount, 35479},
		{"longevity", lb.Longevity, 2.82},
		{"sillage", lb.Sillage, 1.97},
		{"seasons", lb.Seasons, catalog.Seasons{Winter: 6.3, Spring: 30.7, Summer: 56.1, Fall: 7}},
		{"dayNight", lb.DayNight, catalog.DayNight{Day: 89, Night: 11}},
		{"perfumers", lb.Perfumers, []string{"Olivier Cresp"}},
		{"family", lb.Family, "Floral Fruity"},
		{"accords", lb.Accords[:2], []catalog.AccordStrength{{Name: "citrus", Strength: 100}, {Name: "woody", Strength: 75}}},
		{"notes", lb.Notes, catalog.NotePyramid{Top: []string{"Cedar"}, Middle: []string{"Jasmine"}, Base: []string{"Musk", "Amber"}}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.field, c.got, c.want)
		}
	}
	for _, bad := range []string{"<p>", "</p>", "&amp;", "\u00a0"} {
		if strings.Contains(lb.Description, bad) {
			t.Errorf("description still holds %q", bad)
		}
	}
	if !strings.HasPrefix(lb.Description, "Light Blue by Dolce&Gabbana is a floral fruity fragrance for women.") ||
		!strings.Contains(lb.Description, "\n\nDolce & Gabbana Light blue is") {
		t.Errorf("description: %.200q", lb.Description)
	}
	byID := map[int64]catalog.Perfume{}
	for _, p := range res.Perfumes {
		byID[p.ID] = p
	}
	if got := byID[707].Perfumers; !reflect.DeepEqual(got, []string{"Dominique Ropion", "Laurent Bruyere"}) {
		t.Errorf("Alien perfumers %v", got)
	}
	if got := byID[1825].Slug; got != "tom-ford-tobacco-vanille" {
		t.Errorf("Tobacco Vanille slug %q", got)
	}
	if got := byID[1825].Gender; got != catalog.Unisex {
		t.Errorf("Tobacco Vanille gender %q", got)
	}
}

// TestReadFragDBAlone reads fragrances.csv without its lookup files: brands
// and perfumers still come from the inline names.
func TestReadFragDBAlone(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/fragdb/fragrances.csv", filepath.Join(dir, "fragrances.csv"))
	res, err := New(nil).ReadFragDB(filepath.Join(dir, "fragrances.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Perfumes) != 10 {
		t.Fatalf("got %d perfumes, rejected %v", len(res.Perfumes), res.Rejected)
	}
	p := res.Perfumes[0]
	if p.Brand != "Dolce&Gabbana" || len(p.Perfumers) != 1 || len(p.Accords) != 0 || !p.Notes.Empty() {
		t.Errorf("without lookups: brand %q perfumers %v accords %v notes %+v", p.Brand, p.Perfumers, p.Accords, p.Notes)
	}
	if len(res.Warnings) != 6 { // four missing files, unresolved accords and notes
		t.Errorf("warnings: %q", res.Warnings)
	}
}

func TestReadFragDBMalformed(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"pid", "brand", "name", "year", "gender", "accords", "notes_pyramid",
		"perfumers", "description", "rating", "longevity", "sillage", "season", "time_of_day"}
	// row builds a line from a base row with some columns replaced.
	row := func(set map[string]string) string {
		base := map[string]string{"brand": "Acme;b1", "year": "2001", "gender": "gender_for_men"}
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = base[c]
			if v, ok := set[c]; ok {
				out[i] = v
			}
		}
		return strings.Join(out, "|")
	}
	rows := []string{
		row(map[string]string{"pid": "1", "name": "Good", "accords": "a91:100", "notes_pyramid": "top(n54,1.0,5.0)",
			"perfumers": "Jo;p1", "description": "<p>Fine &amp; dandy</p>", "rating": "4.1;10",
			"longevity": "longevity_weak:5:100.0", "sillage": "sillage_strong:2:100.0",
			"season": "season_winter:3:100.0;season_summer:1:33.3", "time_of_day": "season_day:1:100.0"}),
		row(map[string]string{"pid": "x", "name": "Bad Pid"}),
		row(map[string]string{"pid": "3"}),
		row(map[string]string{"pid": "4", "name": "Bad Gender", "gender": "gender_for_robots"}),
		row(map[string]string{"pid": "5", "name": "Bad Accords", "accords": "a1=100"}),
		row(map[string]string{"pid": "6", "name": "Bad Pyramid", "notes_pyramid": "top(n1"}),
		row(map[string]string{"pid": "7", "name": "Bad Votes", "sillage": "sillage_strong:lots"}),
		"8|Acme;b1|Short Row",
		row(map[string]string{"pid": "1", "name": "Duplicate"}),
		row(map[string]string{"pid": "10", "name": "Bad Rating", "rating": "3.5;many"}),
		row(map[string]string{"pid": "11", "name": "Bad Year", "year": "MMI"}),
		row(map[string]string{"pid": "12", "name": "Multi Line", "gender": "gender_for_women_and_men",
			"description": "\"<p>one</p>\n<p>two</p>\""}),
		row(map[string]string{"pid": "13", "name": "Good Elixir", "gender": "gender_for_women"}),
	}
	copyLookups(t, dir)
	writeFile(t, filepath.Join(dir, "fragrances.csv"), strings.Join(cols, "|")+"\n"+strings.Join(rows, "\n")+"\n")
	res, err := New(nil).ReadFragDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	var kept []int64
	for _, p := range res.Perfumes {
		kept = append(kept, p.ID)
	}
	if want := []int64{1, 12, 13}; !reflect.DeepEqual(kept, want) {
		t.Errorf("kept %v, want %v; rejected %v", kept, want, res.Rejected)
	}
	wantLines := map[int]string{
		3: "pid", 4: "missing name", 5: "unknown gender", 6: "accords", 7: "notes_pyramid",
		8: "sillage", 9: "3 fields", 10: "duplicate id 1 (first on line 2)", 11: "rating", 12: "year",
	}
	if len(res.Rejected) != len(wantLines) {
		t.Errorf("rejected %v", res.Rejected)
	}
	for _, re := range res.Rejected {
		if want := wantLines[re.Line]; want == "" || !strings.Contains(re.Reason, want) {
			t.Errorf("unexpected reject %v (want %q)", re, want)
		}
	}
	good := res.Perfumes[0]
	if good.Longevity != 2 || good.Sillage != 3 || good.Seasons.Winter != 75 || good.DayNight.Day != 100 ||
		good.Description != "Fine & dandy" || good.Rating != 4.1 || good.RatingCount != 10 {
		t.Errorf("good row: %+v", good)
	}
	if !reflect.DeepEqual(good.Accords, []catalog.AccordStrength{{Name: "woody", Strength: 100}}) ||
		!reflect.DeepEqual(good.Notes.Top, []string{"Amber"}) || !reflect.DeepEqual(good.Perfumers, []string{"Jo"}) {
		t.Errorf("good row lookups: %v %+v %v", good.Accords, good.Notes, good.Perfumers)
	}
	if got := res.Perfumes[1].Description; got != "one\n\ntwo" {
		t.Errorf("multi-line description %q", got)
	}
	// "Good" is another perfume of the brand, so "Good Elixir" is its Elixir.
	if got := res.Perfumes[2].Concentration; got != "Elixir" {
		t.Errorf("Good Elixir concentration %q", got)
	}
}

func TestReadFragDBErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "fragrances.csv"), "pid|name|gender\n1|x|gender_for_men\n")
	if _, err := New(nil).ReadFragDB(dir); err == nil || !strings.Contains(err.Error(), `"brand"`) {
		t.Errorf("missing brand column: %v", err)
	}
	if _, err := New(nil).ReadFragDB(filepath.Join(dir, "nope")); err == nil {
		t.Error("missing folder accepted")
	}
}

func copyLookups(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"accords.csv", "notes.csv", "brands.csv", "perfumers.csv"} {
		copyFile(t, filepath.Join("testdata/fragdb", f), filepath.Join(dir, f))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
