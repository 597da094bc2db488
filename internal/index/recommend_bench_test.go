package index

import (
	"testing"
	"time"
)

// BenchmarkRecommend times recommendations beside a similar call ranked
// cold (the bundled index here keeps no neighbour lists). Each iteration
// makes one of each, timed apart, so that both meet the same load on a
// shared machine; it reports each one's time and their ratio (the budget
// is 2).
func BenchmarkRecommend(b *testing.B) {
	ix := realIndex(b)
	for _, c := range []struct {
		name    string
		similar string
		q       RecommendQuery
	}{
		{"liked1", "creed-aventus", RecommendQuery{Liked: []string{"creed-aventus"}}},
		{"liked3", "creed-aventus", RecommendQuery{Liked: []string{"creed-aventus", "parfums-de-marly-layton", "dior-sauvage"}}},
		{"liked3-disliked1-avoid", "creed-aventus", RecommendQuery{Liked: []string{"creed-aventus", "parfums-de-marly-layton", "dior-sauvage"},
			Disliked: []string{"chanel-bleu-de-chanel"}, Avoid: []string{"oud"}}},
	} {
		c.q.Page, c.q.Limit = 1, 10
		b.Run(c.name, func(b *testing.B) {
			var sim, rec time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, _, err := ix.Similar(c.similar, 10); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := ix.Recommend(c.q); err != nil {
					b.Fatal(err)
				}
				sim, rec = sim+t1.Sub(t0), rec+time.Since(t1)
			}
			b.ReportMetric(float64(sim.Nanoseconds())/float64(b.N), "ns/similar")
			b.ReportMetric(float64(rec.Nanoseconds())/float64(b.N), "ns/recommend")
			b.ReportMetric(float64(rec)/float64(sim), "recommend/similar")
		})
	}
}
