package index

import (
	"testing"
)

func BenchmarkBuild(b *testing.B) {
	ps, ref := realCatalogue(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		cp, _ := realCatalogue(b)
		b.StartTimer()
		Build(cp, Options{AccordColor: ref.Color})
	}
	_ = ps
}

func BenchmarkPerfumes(b *testing.B) {
	ix := realIndex(b)
	for _, q := range []struct{ name, q string }{
		{"exact", "dior sauvage"},
		{"prefix", "tobacco van"},
		{"typo", "sauvag dior"},
		{"typo2", "baccarrat rougge"},
		{"joined", "lightblue"},
		{"alias", "ysl libre"},
		{"edition", "bleu de chanel parfum"},
		{"number", "one million"},
		{"brand", "chanel"},
		{"short", "sa"},
		{"long", "eau de parfum for men by dior sauvage perfume"},
		{"none", "xyzzy"},
		{"list", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ix.Perfumes(ListQuery{Q: q.q, Page: 1, Limit: 20})
			}
		})
	}
}

func BenchmarkSimilar(b *testing.B) {
	ix := realIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ix.Similar("dior-sauvage", 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDupes(b *testing.B) {
	ix := realIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ix.Dupes("creed-aventus", 20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	ix := realIndex(b)
	for _, q := range []struct {
		name string
		q    MatchQuery
	}{
		{"accords", MatchQuery{Accords: []AccordWant{{"woody", 100}, {"vanilla", 40}}, Notes: []string{"tonka bean"}, Page: 1, Limit: 20}},
		{"filtered", MatchQuery{Accords: []AccordWant{{"citrus", 100}}, Gender: "masculine", Season: "summer", Time: "day", Page: 1, Limit: 20}},
		{"filters-only", MatchQuery{Gender: "feminine", Season: "winter", Page: 1, Limit: 20}},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Match(q.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
