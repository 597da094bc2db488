package importer

import (
	"bytes"
	"compress/gzip"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// fakeTiers prices brands from a map keyed by exact name.
type fakeTiers map[string]catalog.PriceTier

func (f fakeTiers) Tier(brand string) catalog.PriceTier { return f[brand] }

func readFixture(t *testing.T, name string) *Result {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := New(fakeTiers{"Dior": catalog.TierPremium}).ReadJSONL(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReadJSONLFixture(t *testing.T) {
	res := readFixture(t, "small.jsonl")
	if len(res.Rejected) != 0 || len(res.Perfumes) != 3 {
		t.Fatalf("got %d perfumes, rejected %v", len(res.Perfumes), res.Rejected)
	}
	lb, sv, cn := res.Perfumes[0], res.Perfumes[1], res.Perfumes[2]

	want := catalog.Perfume{
		ID: 485, Slug: "dolce-and-gabbana-light-blue", Name: "Light Blue",
		Brand: "Dolce&Gabbana", BrandSlug: "dolce-and-gabbana", Year: 2001,
		Gender: catalog.Feminine, Rating: 3.86, RatingCount: 35479, Longevity: 2.83, Sillage: 1.97,
		Description: "Light Blue by Dolce&Gabbana is a floral fruity fragrance for women.\n\n" +
			`It's a casual "summer" scent with lemon & cedar.`,
		Family: "Floral Fruity",
		Accords: []catalog.AccordStrength{
			{Name: "citrus", Strength: 100}, {Name: "woody", Strength: 75}, {Name: "aquatic", Strength: 63.4},
		},
		Notes: catalog.NotePyramid{
			Top:    []string{"Sicilian Lemon", "Apple", "Cedar"},
			Middle: []string{"Bamboo", "Jasmine"},
			Base:   []string{"Cedar", "Musk", "Amber"},
		},
		Perfumers: []string{"Olivier Cresp"},
		Seasons:   catalog.Seasons{Winter: 5, Spring: 30, Summer: 55, Fall: 10},
		DayNight:  catalog.DayNight{Day: 89.4, Night: 10.6},
	}
	if !reflect.DeepEqual(lb, want) {
		t.Errorf("Light Blue:\n got %+v\nwant %+v", lb, want)
	}

	if sv.Gender != catalog.Masculine || sv.PriceTier != catalog.TierPremium || sv.Year != 0 || sv.Rating != 0 {
		t.Errorf("Sauvage gender/tier/year/rating: %+v", sv)
	}
	wantDesc := "Sauvage by Dior is a fragrance for men. Its main accords are fresh spicy, amber and citrus. " +
		"Key notes include Calabrian bergamot, Pepper and Ambroxan."
	if sv.Description != wantDesc {
		t.Errorf("generated description:\n got %q\nwant %q", sv.Description, wantDesc)
	}
	if sv.Perfumers != nil || !reflect.DeepEqual(sv.Notes.Unplaced, []string{"Calabrian bergamot", "Pepper", "Ambroxan"}) {
		t.Errorf("Sauvage perfumers/notes: %v %+v", sv.Perfumers, sv.Notes)
	}

	if cn.Slug != "maison-test-109850" || cn.Brand != "Maison Test" || cn.Concentration != "Eau de Parfum" {
		t.Errorf("CJK name: slug %q brand %q concentration %q", cn.Slug, cn.Brand, cn.Concentration)
	}
	if cn.Seasons.Winter != 25 || cn.DayNight.Day != 50 {
		t.Errorf("percentages should stay as given: %+v %+v", cn.Seasons, cn.DayNight)
	}
	if cn.Accords == nil || len(cn.Accords) != 0 {
		t.Errorf("empty accords should be an empty list, got %#v", cn.Accords)
	}
	if cn.Description != "东方 by Maison Test is a fragrance for women and men, launched in 2020." {
		t.Errorf("description without accords or notes: %q", cn.Description)
	}
}

func TestReadJSONLMalformed(t *testing.T) {
	res := readFixture(t, "malformed.jsonl")
	var ids []int64
	for _, p := range res.Perfumes {
		ids = append(ids, p.ID)
	}
	if want := []int64{1, 14, 19}; !reflect.DeepEqual(ids, want) {
		t.Errorf("kept ids %v, want %v", ids, want)
	}
	wantLines := map[int]string{
		2:  "invalid JSON",
		3:  "missing or non-positive id",
		4:  "missing name",
		5:  "missing brand",
		6:  `unknown gender "robot"`,
		7:  "rating 7 out of range",
		8:  `accord "woody": strength 150`,
		9:  "duplicate id 1 (first on line 1)",
		11: "not a JSON object",
		12: `field "year"`,
		13: "seasons: negative value",
		15: "longevity 6 out of range",
		16: "missing or non-positive id",
		17: "invalid JSON",
		18: "year 99 out of range",
	}
	if len(res.Rejected) != len(wantLines) {
		t.Errorf("got %d rejects, want %d: %v", len(res.Rejected), len(wantLines), res.Rejected)
	}
	for _, re := range res.Rejected {
		want, ok := wantLines[re.Line]
		if !ok || !strings.Contains(re.Reason, want) || re.File != "malformed.jsonl" {
			t.Errorf("unexpected reject %v (want reason containing %q)", re, want)
		}
	}
	if got := res.Rejected[0].Error(); !strings.HasPrefix(got, "malformed.jsonl:2: invalid JSON") {
		t.Errorf("RowError.Error() = %q", got)
	}
}

func TestReadJSONLGzip(t *testing.T) {
	plain, err := os.ReadFile("testdata/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	im := New(nil)
	fromPlain, err := im.ReadJSONL(bytes.NewReader(plain), "small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fromGz, err := im.ReadJSONL(bytes.NewReader(gz.Bytes()), "small.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromPlain, fromGz) {
		t.Error("gzipped and plain input differ")
	}
	// A gzip stream cut short is an input error, not a row error.
	if _, err := im.ReadJSONL(bytes.NewReader(gz.Bytes()[:gz.Len()/2]), "cut.gz"); err == nil {
		t.Error("truncated gzip accepted")
	}
}

func TestReadJSONLEdges(t *testing.T) {
	// A line of 200 kB whose description, its white space folded, is
	// within the description's bound.
	long := `{"fragranticaId":2,"name":"Long","brand":"B","gender":"unisex","description":"x` +
		strings.Repeat(" ", 200_000) + `x"}`
	tests := []struct {
		name      string
		in        string
		perfumes  int
		rejected  int
		firstLine int
	}{
		{"empty", "", 0, 0, 0},
		{"blank lines", "\n\n  \n", 0, 0, 0},
		{"BOM and CRLF", "\uFEFF" + `{"fragranticaId":1,"name":"A","brand":"B","gender":"unisex"}` + "\r\n", 1, 0, 0},
		{"long line", long + "\n" + `{"fragranticaId":3}`, 1, 1, 2},
		{"too long line", strings.Repeat(" ", maxLineBytes+10) + "\n{}\n", 0, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := New(nil).ReadJSONL(strings.NewReader(tc.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Perfumes) != tc.perfumes || len(res.Rejected) != tc.rejected {
				t.Fatalf("got %d perfumes, %v rejects", len(res.Perfumes), res.Rejected)
			}
			if tc.rejected > 0 && res.Rejected[0].Line != tc.firstLine {
				t.Errorf("first reject on line %d, want %d", res.Rejected[0].Line, tc.firstLine)
			}
		})
	}
}

func TestReadPathDetects(t *testing.T) {
	im := New(nil)
	tests := []struct {
		path string
		want int
	}{
		{"testdata/small.jsonl", 3},
		{"testdata/fragdb", 10},
		{"testdata/fragdb/fragrances.csv", 10},
	}
	for _, tc := range tests {
		res, err := im.ReadPath(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if len(res.Perfumes) != tc.want {
			t.Errorf("%s: %d perfumes, want %d", tc.path, len(res.Perfumes), tc.want)
		}
	}
	if _, err := im.ReadPath("testdata/nope.jsonl"); err == nil {
		t.Error("missing file accepted")
	}
}

func TestPreferredSlug(t *testing.T) {
	tests := []struct {
		name, brand string
		want        string
	}{
		{"Light Blue", "Dolce&Gabbana", "dolce-and-gabbana-light-blue"},
		{"Terre d'Hermès", "Hermès", "hermes-terre-d-hermes"},
		{"东方", "Maison Test", "maison-test-42"},
		{"Русская Шаль (Russian Shawl)", "Северное сияние", "russian-shawl-42"},
		{"花果山", "狮吼堂", "42"},
	}
	for _, tc := range tests {
		p := catalog.Perfume{ID: 42, Name: tc.name, Brand: tc.brand, BrandSlug: search.Slugify(tc.brand)}
		if got := preferredSlug(&p); got != tc.want {
			t.Errorf("preferredSlug(%q, %q) = %q, want %q", tc.name, tc.brand, got, tc.want)
		}
	}
}

func TestBrandSlugFallback(t *testing.T) {
	if got := brandSlug("Dolce&Gabbana"); got != "dolce-and-gabbana" {
		t.Errorf("brandSlug = %q", got)
	}
	a, b := brandSlug("狮吼堂"), brandSlug("Северное сияние")
	if a == b || len(a) != len("brand-")+8 || a != brandSlug("狮吼堂") {
		t.Errorf("fallback slugs %q %q", a, b)
	}
}
