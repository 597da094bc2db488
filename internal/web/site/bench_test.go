package site_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// BenchmarkPerfumePage renders perfume pages from the index as GET
// /perfumes/{slug} does (similar perfumes, cheaper alternatives, template,
// ETag, nonce), without the server's middleware: "warm" asks the 200 most
// rated perfumes over and over (from the second time, each is served from
// its kept rendering with a fresh nonce), "cold" walks the whole
// catalogue, so that every page is made from the index.
//
//	go test ./internal/web/site -run '^$' -bench PerfumePage -benchtime 2000x
func BenchmarkPerfumePage(b *testing.B) {
	holder := servetest.Catalogue(b)
	ref, err := bundled.LoadReference()
	if err != nil {
		b.Fatal(err)
	}
	ground, err := web.New(web.Config{Catalogue: holder, BaseURL: servetest.BaseURL})
	if err != nil {
		b.Fatal(err)
	}
	newMux := func() http.Handler { // a new page cache
		pages, err := site.New(site.Config{Web: ground, Catalogue: holder, View: view.NewBuilder(servetest.BaseURL, nil, ref.Color)})
		if err != nil {
			b.Fatal(err)
		}
		mux := http.NewServeMux()
		pages.Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
		return mux
	}
	ix := holder.Load()
	b.Run("warm", func(b *testing.B) { benchPages(b, newMux(), ix.Perfumes(index.ListQuery{Page: 1, Limit: 200}).Entries) })
	b.Run("cold", func(b *testing.B) {
		benchPages(b, newMux(), ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()}).Entries)
	})
}

func benchPages(b *testing.B, mux http.Handler, es []*index.Entry) {
	reqs := make([]*http.Request, len(es))
	for i, e := range es {
		reqs[i] = httptest.NewRequest("GET", site.PerfumeURL(e.Slug()), nil)
	}
	b.ReportAllocs()
	cpu0 := servetest.CPUTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, reqs[i%len(reqs)])
		if rec.Code != 200 {
			b.Fatalf("%s = %d", reqs[i%len(reqs)].URL, rec.Code)
		}
		n++
	}
	// CPU time, not wall time, is the measure on a machine shared with
	// other jobs: the process's user and system time per page.
	b.ReportMetric(float64((servetest.CPUTime()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}

// BenchmarkPerfumeContent writes the content of the perfume pages of the
// 200 most rated perfumes, their data gathered beforehand: "generated" as
// the site does, with the writer generated from templates/perfume.html;
// "html/template" by executing the template, which is what the generated
// writer spares a page made from the index.
//
//	go test ./internal/web/site -run '^$' -bench PerfumeContent
func BenchmarkPerfumeContent(b *testing.B) {
	s, ix := newSite(b)
	var slugs []string
	for _, e := range ix.Perfumes(index.ListQuery{Page: 1, Limit: 200}).Entries {
		slugs = append(slugs, e.Slug())
	}
	generated, executed, err := s.PerfumeContentWriters(ix, slugs)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name  string
		write func(int) (int, error)
	}{{"generated", generated}, {"html/template", executed}} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, bytes := servetest.CPUTime(), 0
			for i := 0; b.Loop(); i++ {
				n, err := w.write(i)
				if err != nil {
					b.Fatal(err)
				}
				bytes += n
			}
			b.SetBytes(int64(bytes / b.N))
			b.ReportMetric(float64((servetest.CPUTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkDiscoveryPages renders the search page of a name ("sauvage":
// the name search, and the description parser that finds nothing), of a
// description ("vanilla tobacco for winter": the parser, the name
// search's first result, the description ranking's page), of a
// well-known name read both ways ("tobacco vanille") and the taste page
// of two liked perfumes (the index's recommendation), as GET does
// without the server's middleware.
//
//	go test ./internal/web/site -run '^$' -bench DiscoveryPages -benchtime 200x
func BenchmarkDiscoveryPages(b *testing.B) {
	s, _ := newSite(b)
	mux := http.NewServeMux()
	s.Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
	for _, p := range []struct{ name, path string }{
		{"search-name", "/search?q=sauvage"},
		{"search-description", "/search?q=vanilla+tobacco+for+winter"},
		{"search-name-and-description", "/search?q=tobacco+vanille"},
		{"taste", "/taste?liked=tom-ford-tobacco-vanille&liked=creed-aventus"},
	} {
		b.Run(p.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", p.path, nil)
			b.ReportAllocs()
			cpu0 := servetest.CPUTime()
			for b.Loop() {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("%s = %d", p.path, rec.Code)
				}
			}
			b.ReportMetric(float64((servetest.CPUTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
