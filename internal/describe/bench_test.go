package describe_test

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// BenchmarkDescribedMatch times a description (parsed, applied and
// matched) beside the structured match asking the same things, in one
// run: the budget is 1.5 times the structured one.
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
			index.MatchQuery{Accords: []index.AccordWant{{Name: "smoky", Strength: 100}}, Notes: []string{"Smoke"}}},
	} {
		c.q.Page, c.q.Limit = 1, 20
		b.Run(c.name+"/structured", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Match(c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/described", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := p.Parse(c.text)
				if _, err := ix.Match(r.Apply(index.MatchQuery{Page: 1, Limit: 20})); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
