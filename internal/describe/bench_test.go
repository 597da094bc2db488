package describe_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// BenchmarkDescribedMatch times a description (parsed, applied and
// matched) beside the structured match asking the same things. Each
// iteration makes one of each, timed apart, so that both meet the same
// load on a shared machine; it reports each one's time and their ratio
// (the budget is 1.5).
func BenchmarkDescribedMatch(b *testing.B) {
	ix, err := bundled()
	if err != nil {
		b.Fatal(err)
	}
	p := parser(b)
	for _, c := range []struct {
		name, text string
		q          index.MatchQuery
	}{
		{"vanilla-tobacco-winter", "vanilla tobacco for winter",
			index.MatchQuery{Accords: []index.AccordWant{{Name: "vanilla", Strength: 100}, {Name: "tobacco", Strength: 100}}, Notes: []string{"Vanilla", "Tobacco"}, Season: "winter"}},
		{"citrus-office-men", "fresh citrus for the office for men",
			index.MatchQuery{Accords: []index.AccordWant{{Name: "fresh", Strength: 100}, {Name: "citrus", Strength: 100}}, Gender: catalog.Masculine, Time: "day"}},
		{"smoky-not-oud", "something smoky but not oud",
			index.MatchQuery{Accords: []index.AccordWant{{Name: "smoky", Strength: 100}}, Notes: []string{"Smoke"},
				Exclude: index.Want{Accords: []string{"oud"}, Notes: []string{"Oud", "Agarwood (Oud)"}}}},
	} {
		c.q.Page, c.q.Limit = 1, 20
		b.Run(c.name, func(b *testing.B) {
			var structured, described time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := ix.Match(c.q); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				r := p.Parse(c.text)
				if _, err := ix.Match(r.Apply(index.MatchQuery{Page: 1, Limit: 20})); err != nil {
					b.Fatal(err)
				}
				structured, described = structured+t1.Sub(t0), described+time.Since(t1)
			}
			b.ReportMetric(float64(structured.Nanoseconds())/float64(b.N), "ns/structured")
			b.ReportMetric(float64(described.Nanoseconds())/float64(b.N), "ns/described")
			b.ReportMetric(float64(described)/float64(structured), "described/structured")
		})
	}
}
