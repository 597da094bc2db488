package index

import "testing"

// BenchmarkRecommend times recommendations beside a similar call ranked
// cold (the bundled index here keeps no neighbour lists), in one run: the
// budget is twice the similar call.
func BenchmarkRecommend(b *testing.B) {
	ix := realIndex(b)
	b.Run("similar", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ix.Similar("creed-aventus", 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		q    RecommendQuery
	}{
		{"liked1", RecommendQuery{Liked: []string{"creed-aventus"}}},
		{"liked3", RecommendQuery{Liked: []string{"creed-aventus", "parfums-de-marly-layton", "dior-sauvage"}}},
		{"liked3-disliked1-avoid", RecommendQuery{Liked: []string{"creed-aventus", "parfums-de-marly-layton", "dior-sauvage"},
			Disliked: []string{"chanel-bleu-de-chanel"}, Avoid: []string{"oud"}}},
	} {
		c.q.Page, c.q.Limit = 1, 10
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Recommend(c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
