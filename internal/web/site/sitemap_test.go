package site_test

import (
	"encoding/xml"
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
