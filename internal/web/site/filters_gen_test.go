package site

import (
	"bytes"
	"html/template"
	"maps"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site/tplgen"
)

// filtersWriter is how filters_gen.go is generated: template "filters" of
// templates/_filters.html, with the functions the perfume page's writer
// has.
func filtersWriter() tplgen.Config {
	c := perfumeWriter()
	c.Func, c.Files, c.Template, c.Data = "writeFilters", []string{"templates/_filters.html", "templates/_cards.html"}, "filters", reflect.TypeFor[*filterPanel]()
	return c
}

// TestFiltersWriterIsGenerated: filters_gen.go is what
// templates/_filters.html generates now; with -update (go generate), it is
// written.
func TestFiltersWriterIsGenerated(t *testing.T) {
	src, err := tplgen.Generate(filtersWriter())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("filters_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile("filters_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatal("filters_gen.go is not what templates/_filters.html generates: run `go generate ./internal/web/site` and commit the result")
	}
}

// TestFiltersPanelMatchesTemplate: the panel written by the Go generated
// from templates/_filters.html is byte for byte what html/template
// renders from the template: panels of every kind (chosen values, counts
// and none, the search's text kept) and panels whose every text is
// hostile.
func TestFiltersPanelMatchesTemplate(t *testing.T) {
	funcs := maps.Clone(funcs())
	funcs["num"], funcs["dec"] = web.Thousands, web.Decimal
	tpl, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/_*.html")
	if err != nil {
		t.Fatal(err)
	}
	facets := &index.Facets{
		Gender: []index.FacetCount{{Value: "masculine", Count: 1200}, {Value: "feminine", Count: 0}, {Value: "unisex", Count: 7}},
		Season: []index.FacetCount{{Value: "winter", Count: 3}}, Time: []index.FacetCount{{Value: "night", Count: 12345}},
		Accords: []index.FacetCount{{Value: "woody", Count: 50}, {Value: "fresh spicy", Count: 3}},
		Notes:   []index.FacetCount{{Value: "Sideritis, Mountain Tea", Count: 1}},
	}
	var panels []*filterPanel
	for _, raw := range []string{"", "gender=feminine&season=winter&time=day&accords=woody&notes=Rose&from=2010&to=2020&minRating=4&sort=newest", "accords=unknown"} {
		v, _ := url.ParseQuery(raw)
		f, _ := parseFilters(v)
		for _, q := range []string{"", "rose & <b>"} {
			panels = append(panels, newPanel("/brands/chanel", q, f, facets, index.BrowseQuery{Accords: []string{"fresh spicy"}}, "Most rated", raw == "accords=unknown"))
		}
	}
	panels = append(panels, newPanel("/search", "", filters{}, nil, index.BrowseQuery{}, "Relevance", false))
	for _, h := range []string{`"><script>alert(1)</script>`, "javascript:alert(1)", "é ü 香水 \uFDD0 \xff\xfe", "a+b & c\x00d", "%zz"} {
		f := filters{Genders: []string{h}, Season: h, Time: h, Accords: []string{h}, Notes: []string{h}, MinRating: h, Sort: h}
		p := newPanel("/brands/"+h, h, f, &index.Facets{Accords: []index.FacetCount{{Value: h, Count: 2}}}, index.BrowseQuery{}, h, false)
		p.From, p.To = h, h
		panels = append(panels, p)
	}
	for i, p := range panels {
		var want strings.Builder
		if err := tpl.ExecuteTemplate(&want, "filters", p); err != nil {
			t.Fatal(err)
		}
		got, err := filtersHTML(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Errorf("panel %d: the generated writer wrote\n%s\nhtml/template\n%s", i, got, want.String())
		}
	}
}
