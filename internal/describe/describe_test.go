package describe_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/describe"
	"github.com/fragrance-data/fragrance/internal/evaluation"
	"github.com/fragrance-data/fragrance/internal/index"
)

// bundled is the index of the bundled catalogue, built once for the
// package's tests.
var bundled = sync.OnceValues(func() (*index.Index, error) {
	ps, _, err := evaluation.BundledPerfumes()
	if err != nil {
		return nil, err
	}
	return index.Build(ps, index.Options{}), nil
})

func parser(t testing.TB) *describe.Parser {
	t.Helper()
	ix, err := bundled()
	if err != nil {
		t.Fatal(err)
	}
	return describe.For(ix)
}

// want is what a test expects of a Reading; nil lists are not checked,
// empty ones must be empty.
type want struct {
	accords, notes, excluded, ignored []string
	gender, season, time, brand       string
}

func TestParseUnderstandsPhrasings(t *testing.T) {
	p := parser(t)
	cases := []struct {
		text string
		want want
	}{
		{"vanilla tobacco for winter", want{accords: []string{"vanilla", "tobacco"}, notes: []string{"Vanilla", "Tobacco"}, season: "winter", ignored: []string{}}},
		{"Fresh citrus for the office, for men", want{accords: []string{"fresh", "citrus"}, gender: "masculine", time: "day", ignored: []string{}}},
		{"something smoky but not oud", want{accords: []string{"smoky"}, excluded: []string{"Agarwood (Oud)"}, ignored: []string{}}},
		{"clean soapy scent for her", want{gender: "feminine", ignored: []string{}}},
		{"beachy summer day perfume", want{season: "summer", time: "day", ignored: []string{}}},
		{"Dior vanilla", want{brand: "Dior", accords: []string{"vanilla"}, ignored: []string{}}},
		{"PINK PEPPER and lily of the valley", want{notes: []string{"Pink Pepper", "Lily-of-the-Valley"}, ignored: []string{}}},
		{"tonka", want{notes: []string{"Tonka", "Tonka Bean"}}},
		{"roses and violets", want{accords: []string{"rose", "violet"}, notes: []string{"Rose", "Violet"}}},
		{"no vanilla or caramel", want{accords: []string{}, excluded: []string{"vanilla", "caramel"}}},
		{"without oud, with amber", want{accords: []string{"amber"}, excluded: []string{"Agarwood (Oud)"}}},
		{"not sweet", want{accords: []string{}, excluded: []string{"sweet"}}},
		{"not too sweet", want{excluded: []string{"sweet"}}},
		{"date night fragrance for him", want{time: "night", gender: "masculine", ignored: []string{}}},
		{"cold weather men's cologne", want{season: "winter", gender: "masculine", ignored: []string{}}},
		{"autumn", want{season: "fall"}},
		{"hot days", want{season: "summer"}},
		{"unisex night out", want{gender: "unisex", time: "night"}},
		{"zxqv blörp", want{ignored: []string{"zxqv", "blorp"}}},
		{"ysl leather", want{brand: "Yves Saint Laurent", accords: []string{"leather"}}},
		{"tom ford tobacco", want{brand: "Tom Ford"}},
		{"qwerty vanilla", want{accords: []string{"vanilla"}, ignored: []string{"qwerty"}}},
		{"not for winter", want{season: "", ignored: []string{"winter"}}},
		{"boozy gourmand", want{ignored: []string{}}},
		{"woodsy", want{accords: []string{"woody"}}},
		{"powder", want{accords: []string{"powdery"}}},
		{"summer or spring", want{season: "summer", ignored: []string{"spring"}}},
		{"", want{ignored: []string{}}},
	}
	for _, c := range cases {
		r := p.Parse(c.text)
		check := func(what string, got, want []string) {
			if want != nil && !slices.Equal(nonNil(got), want) && !(len(want) > 0 && containsAll(got, want)) {
				t.Errorf("%q: %s = %q, want %q", c.text, what, got, want)
			}
		}
		check("accords", r.Accords, c.want.accords)
		check("notes", r.Notes, c.want.notes)
		check("excluded", r.Excluded, c.want.excluded)
		check("ignored", r.Ignored, c.want.ignored)
		for _, f := range []struct{ what, got, want string }{
			{"gender", string(r.Gender), c.want.gender}, {"season", r.Season, c.want.season}, {"time", r.Time, c.want.time}, {"brand", r.Brand, c.want.brand},
		} {
			if f.want != "" && f.got != f.want {
				t.Errorf("%q: %s = %q, want %q", c.text, f.what, f.got, f.want)
			}
		}
	}
}

// containsAll reports whether got starts with every item of want, in
// order: a case may name the first items and leave the rest.
func containsAll(got, want []string) bool {
	return len(got) >= len(want) && slices.Equal(got[:len(want)], want)
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func TestParseWordsForScentsFindTheirAccordsAndNotes(t *testing.T) {
	p := parser(t)
	for text, has := range map[string]string{
		"boozy": "rum", "gourmand": "caramel", "clean": "soapy", "beachy": "aquatic", "smoky": "smoky",
		"creamy": "lactonic", "citrusy": "citrus", "soapy": "soapy", "powdery": "powdery",
	} {
		r := p.Parse(text)
		if len(r.Wants) != 1 || !slices.Contains(r.Wants[0].Accords, has) {
			t.Errorf("%q: wants %+v, want one with the accord %q", text, r.Wants, has)
		}
	}
}

func TestParseNoteBringsTheNotesNamedAfterIt(t *testing.T) {
	r := parser(t).Parse("vanilla")
	if len(r.Wants) != 1 || !slices.Contains(r.Wants[0].Notes, "Madagascar Vanilla") || !slices.Contains(r.Wants[0].Notes, "Vanilla") {
		t.Fatalf("wants %+v: want Vanilla with Madagascar Vanilla", r.Wants)
	}
	r = parser(t).Parse("oud")
	if len(r.Wants) != 1 || !slices.Contains(r.Wants[0].Notes, "Agarwood (Oud)") || !slices.Contains(r.Wants[0].Notes, "Oud") {
		t.Fatalf("wants %+v: want Agarwood (Oud) and Oud", r.Wants)
	}
}

func TestParseKeepsTermsInOrder(t *testing.T) {
	r := parser(t).Parse("for winter: vanilla, no oud, by Dior, at night")
	var got []string
	for _, term := range r.Terms {
		s := string(term.Kind) + ":" + term.Value
		if term.Excluded {
			s = "-" + s
		}
		got = append(got, s)
	}
	want := []string{"season:winter", "scent:vanilla", "-scent:Agarwood (Oud)", "brand:Dior", "time:night"}
	if !slices.Equal(got, want) {
		t.Fatalf("terms %q, want %q", got, want)
	}
}

func TestParserIsBuiltOncePerCatalogue(t *testing.T) {
	ix, err := bundled()
	if err != nil {
		t.Fatal(err)
	}
	if describe.For(ix) != describe.For(ix) {
		t.Fatal("two parsers for one catalogue")
	}
}

func TestTableRefusesWhatItCannotRead(t *testing.T) {
	for _, text := range []string{
		"[scents]\nboozy = rum",
		"[scents]\nboozy",
		"[gender]\nfor men = male",
		"[season]\nwinter = cold",
		"[filler]\nthe\n[negation]\nthe",
		"[nowhere]\nx",
		"[filler]\nx = y",
	} {
		if _, err := describe.ParseTable(text); err == nil {
			t.Errorf("%q: no error", text)
		}
	}
}

func TestTableTargetsAreInTheBundledCatalogue(t *testing.T) {
	ix, err := bundled()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range append(ix.AccordNames(), ix.NoteNames()...) {
		known[strings.ToLower(strings.NewReplacer("(", "", ")", "", "-", " ").Replace(n))] = true
	}
	for phrase, s := range describe.DefaultTable().Scents {
		for _, name := range append(slices.Clone(s.Accords), s.Notes...) {
			if !known[name] {
				t.Errorf("[scents] %q names %q, which the bundled catalogue lacks", phrase, name)
			}
		}
	}
}

func BenchmarkParse(b *testing.B) {
	p := parser(b)
	texts := []string{
		"vanilla tobacco for winter",
		"fresh citrus for the office for men",
		"something smoky but not oud, with a bit of leather, for date night in cold weather",
		"clean soapy scent for her",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = p.Parse(texts[i%len(texts)])
	}
}

func FuzzDescribeParse(f *testing.F) {
	for _, s := range []string{"vanilla tobacco for winter", "no oud or vanilla", "not not not", "Dior & Chanel", "men's", "\xff\xfe", "lily of the", strings.Repeat("oud ", 60)} {
		f.Add(s)
	}
	p := parser(f)
	f.Fuzz(func(t *testing.T, text string) {
		r := p.Parse(text)
		if len(r.Wants) != len(r.Terms)-countNonScent(r)-countExcluded(r) {
			t.Fatalf("%q: %d wants for %d wanted scent terms", text, len(r.Wants), len(r.Terms)-countNonScent(r)-countExcluded(r))
		}
		for _, term := range r.Terms {
			if term.Text == "" || term.Value == "" {
				t.Fatalf("%q: empty term %+v", text, term)
			}
		}
		if r.BrandSlug == "" != (r.Brand == "") {
			t.Fatalf("%q: brand %q with slug %q", text, r.Brand, r.BrandSlug)
		}
	})
}

func countNonScent(r describe.Reading) int {
	n := 0
	for _, t := range r.Terms {
		if t.Kind != describe.KindScent {
			n++
		}
	}
	return n
}

func countExcluded(r describe.Reading) int {
	n := 0
	for _, t := range r.Terms {
		if t.Excluded {
			n++
		}
	}
	return n
}

func TestApplyLetsParametersWin(t *testing.T) {
	r := parser(t).Parse("woody for winter for her, no oud, by dior")
	q := r.Apply(index.MatchQuery{Season: "summer", Notes: []string{"Rose"}, Exclude: index.Want{Accords: []string{"sweet"}}})
	if q.Season != "summer" || q.Prefer.Season != "" || q.Prefer.Gender != "feminine" || q.Brand != "dior" || q.Sort != index.SortPopular {
		t.Errorf("applied %+v", q)
	}
	if len(q.Wants) != 1 || !slices.Contains(q.Exclude.Accords, "sweet") || !slices.Contains(q.Exclude.Notes, "Agarwood (Oud)") {
		t.Errorf("wants %+v, exclude %+v", q.Wants, q.Exclude)
	}
	if q := (&describe.Reading{}).Apply(index.MatchQuery{Notes: []string{"Rose"}}); q.Sort != "" {
		t.Errorf("a reading understanding nothing set sort %q", q.Sort)
	}
}
