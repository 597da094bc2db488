package site_test

import (
	"net/http/httptest"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// BenchmarkListPages renders the list pages the filter panel stands on,
// through the composed server, plain and filtered: each plain page counts
// the panel's facets over its list, a filtered one also those of each
// group chosen in (gender, season, time) without that choice.
//
//	go test ./internal/web/site -run '^$' -bench ListPages -count 6
//
// The page's whole cost (the server's middleware, the template, the ETag)
// with its CPU time beside the wall time, as the machine may be shared.
func BenchmarkListPages(b *testing.B) {
	h := servetest.NewServer(b, nil)
	for _, p := range []struct{ name, path string }{
		{"search", "/search?q=rose"},
		{"search-filtered", "/search?q=rose&gender=feminine&season=spring&accords=floral&minRating=3.5"},
		{"catalogue-filtered", "/search?gender=feminine&time=night&from=2010&sort=rating"},
		{"brand", "/brands/chanel"},
		{"brand-filtered", "/brands/chanel?gender=feminine&season=winter&notes=Jasmine"},
		{"note", "/notes/musk"},
		{"note-filtered", "/notes/musk?gender=unisex&accords=woody&accords=amber&sort=newest"},
		{"accord", "/accords/woody"},
		{"accord-filtered", "/accords/woody?season=fall&time=night&page=3"},
	} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := servetest.CPUTime()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", p.path, nil))
				if rec.Code != 200 {
					b.Fatalf("%s: %d", p.path, rec.Code)
				}
			}
			// CPU time, not wall time, on a machine shared with other jobs.
			b.ReportMetric(float64((servetest.CPUTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
		})
	}
}
