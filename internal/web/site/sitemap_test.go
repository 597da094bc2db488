package site_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"hash"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

type sitemapIndex struct {
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type urlSet struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"url"`
}

// TestSitemap: the sitemap index lists parts of at most SitemapPartSize
// URLs that cover every perfume, brand and perfumer page, with lastmod;
// robots.txt names it.
func TestSitemap(t *testing.T) {
	const partSize = 10_000 // several parts of perfumes from the bundled catalogue
	holder := servetest.Catalogue(t)
	ix := holder.Load()
	ground, err := web.New(web.Config{Catalogue: holder, BaseURL: servetest.BaseURL})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := site.New(site.Config{Web: ground, Catalogue: holder, View: view.NewBuilder(servetest.BaseURL, nil, nil), SitemapPartSize: partSize})
	if err != nil {
		t.Fatal(err)
	}
	h := servetest.NewServer(t, func(c *servetest.Config) { c.Catalogue, c.Pages = holder, server.Join(ground, pages) })
	rec := servetest.Do(t, h, "GET", "/sitemap.xml")
	var idx sitemapIndex
	if err := xml.Unmarshal(rec.Body.Bytes(), &idx); err != nil || rec.Code != 200 ||
		!strings.HasPrefix(rec.Header().Get("Content-Type"), "application/xml") {
		t.Fatalf("sitemap.xml = %d: %v", rec.Code, err)
	}
	seen := map[string]bool{}
	for _, sm := range idx.Sitemaps {
		if sm.Lastmod == "" {
			t.Errorf("%s has no lastmod", sm.Loc)
		}
		path := strings.TrimPrefix(sm.Loc, "https://fragrance.example")
		part := servetest.Do(t, h, "GET", path)
		var set urlSet
		if err := xml.Unmarshal(part.Body.Bytes(), &set); err != nil || part.Code != 200 {
			t.Fatalf("%s = %d: %v", path, part.Code, err)
		}
		if len(set.URLs) == 0 || len(set.URLs) > partSize {
			t.Errorf("%s lists %d URLs", path, len(set.URLs))
		}
		for _, u := range set.URLs {
			if seen[u.Loc] || u.Lastmod == "" || !strings.HasPrefix(u.Loc, "https://fragrance.example/") {
				t.Errorf("%s: %+v (seen before: %v)", path, u, seen[u.Loc])
			}
			seen[u.Loc] = true
		}
	}
	perfumes, brands, perfumers := 0, 0, 0
	for loc := range seen {
		switch {
		case strings.Contains(loc, "/perfumes/"):
			perfumes++
		case strings.Contains(loc, "/brands/"):
			brands++
		case strings.Contains(loc, "/perfumers/"):
			perfumers++
		}
	}
	if perfumes != ix.Len() || brands != len(ix.Brands("")) || perfumers != len(ix.Perfumers()) {
		t.Errorf("sitemaps cover %d perfumes, %d brands, %d perfumers; the catalogue has %d, %d, %d",
			perfumes, brands, perfumers, ix.Len(), len(ix.Brands("")), len(ix.Perfumers()))
	}
	if !seen["https://fragrance.example/perfumes/dior-sauvage"] || !seen["https://fragrance.example/brands/dior"] {
		t.Error("the sitemaps miss dior-sauvage or dior")
	}
	for _, bad := range []string{"/sitemaps/perfumes-99.xml", "/sitemaps/perfumes-0.xml", "/sitemaps/nope-1.xml", "/sitemaps/perfumes-01.xml"} {
		if rec := servetest.Do(t, h, "GET", bad); rec.Code != 404 {
			t.Errorf("%s = %d", bad, rec.Code)
		}
	}
	robots := servetest.Do(t, h, "GET", "/robots.txt").Body.String()
	if !strings.Contains(robots, "Sitemap: https://fragrance.example/sitemap.xml") || !strings.Contains(robots, "Disallow: /search") {
		t.Errorf("robots.txt:\n%s", robots)
	}
}

// TestSitemapPartsMadeOncePerCatalogue: a sitemap part is made once per
// catalogue and served again as kept bytes: asking again allocates a
// small fraction of the part's size, and answers the same bytes.
func TestSitemapPartsMadeOncePerCatalogue(t *testing.T) {
	holder := servetest.Catalogue(t)
	ground, err := web.New(web.Config{Catalogue: holder, BaseURL: servetest.BaseURL})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := site.New(site.Config{Web: ground, Catalogue: holder, View: view.NewBuilder(servetest.BaseURL, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	h := servetest.NewServer(t, func(c *servetest.Config) { c.Catalogue, c.Pages = holder, server.Join(ground, pages) })
	first := servetest.Do(t, h, "GET", "/sitemaps/perfumes-1.xml")
	if first.Code != 200 || first.Body.Len() < 1<<20 {
		t.Fatalf("perfumes-1.xml = %d, %d bytes", first.Code, first.Body.Len())
	}
	want := sha256.Sum256(first.Body.Bytes())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const asks = 5
	for range asks {
		w := &hashWriter{header: http.Header{}, sum: sha256.New()}
		h.ServeHTTP(w, httptest.NewRequest("GET", "/sitemaps/perfumes-1.xml", nil))
		if got := w.sum.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatal("the part changed while the catalogue did not")
		}
	}
	runtime.ReadMemStats(&after)
	if perAsk := (after.TotalAlloc - before.TotalAlloc) / asks; perAsk > uint64(first.Body.Len())/10 {
		t.Errorf("asking again for a %d-byte part allocated %d bytes an ask: made again, not kept", first.Body.Len(), perAsk)
	}
}

// hashWriter is a ResponseWriter that keeps only the hash of the body.
type hashWriter struct {
	header http.Header
	sum    hash.Hash
}

func (w *hashWriter) Header() http.Header         { return w.header }
func (w *hashWriter) WriteHeader(int)             {}
func (w *hashWriter) Write(b []byte) (int, error) { return w.sum.Write(b) }
