package site

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
)

// MaxSitemapPart is the most URLs a sitemap part may list (the sitemaps
// protocol's bound), and the default part size.
const MaxSitemapPart = 50_000

// The kinds of sitemap parts: every perfume, brand and perfumer page.
var sitemapKinds = []string{"perfumes", "brands", "perfumers"}

// loaded remembers when each catalogue was first served, the lastmod of
// every page of the sitemaps: pages change only when the catalogue does.
type loaded struct {
	mu sync.Mutex
	ix *index.Index
	at time.Time
}

func (l *loaded) since(ix *index.Index) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ix != ix {
		l.ix, l.at = ix, time.Now().UTC()
	}
	return l.at
}

// sitemapParts keeps the sitemap parts of one catalogue as the bytes
// served: a part (up to 50,000 URLs) is made once per catalogue, not once
// per crawler's request. A new catalogue
// forgets them all; each is made by its first request, which the others
// asking for it at the time wait for.
type sitemapParts struct {
	mu    sync.Mutex
	ix    *index.Index
	parts map[string]*sitemapPart
}

// sitemapPart is one kept part, made once.
type sitemapPart struct {
	once sync.Once
	body []byte
}

// get returns part name of ix, made by build when it is not kept yet.
func (c *sitemapParts) get(ix *index.Index, name string, build func() []byte) []byte {
	c.mu.Lock()
	if c.ix != ix {
		c.ix, c.parts = ix, map[string]*sitemapPart{}
	}
	p := c.parts[name]
	if p == nil {
		p = &sitemapPart{}
		c.parts[name] = p
	}
	c.mu.Unlock()
	p.once.Do(func() { p.body = build() })
	return p.body
}

// sitemapCount is the number of pages of a kind.
func sitemapCount(ix *index.Index, kind string) int {
	switch kind {
	case "perfumes":
		return ix.Len()
	case "brands":
		return len(ix.Brands(""))
	case "perfumers":
		return len(ix.Perfumers())
	}
	return 0
}

// sitemapPaths calls yield with the paths of part n (1-based) of kind.
func sitemapPaths(ix *index.Index, kind string, n, size int, yield func(path string)) {
	from := (n - 1) * size
	switch kind {
	case "perfumes":
		pg := ix.Perfumes(index.ListQuery{Page: n, Limit: size})
		for _, e := range pg.Entries {
			yield(PerfumeURL(e.Slug()))
		}
	case "brands":
		bs := ix.Brands("")
		for _, c := range bs[min(from, len(bs)):min(from+size, len(bs))] {
			yield(BrandURL(c.Slug))
		}
	case "perfumers":
		ps := ix.Perfumers()
		for _, c := range ps[min(from, len(ps)):min(from+size, len(ps))] {
			yield(PerfumerURL(c.Slug))
		}
	}
}

// sitemapIndex is GET /sitemap.xml: the sitemap index of the parts.
func (s *Site) sitemapIndex(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	lastmod, size := s.loaded.since(ix).Format(time.RFC3339), s.partSize
	xmlHeaders(w)
	b := bufio.NewWriter(w)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, kind := range sitemapKinds {
		parts := (sitemapCount(ix, kind) + size - 1) / size
		for n := 1; n <= parts; n++ {
			fmt.Fprintf(b, "<sitemap><loc>%s/sitemaps/%s-%d.xml</loc><lastmod>%s</lastmod></sitemap>\n", xmlText(s.base), kind, n, lastmod)
		}
	}
	b.WriteString("</sitemapindex>\n")
	b.Flush()
}

// sitemapPart is GET /sitemaps/{kind}-{n}.xml.
func (s *Site) sitemapPart(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	name, ok := strings.CutSuffix(r.PathValue("part"), ".xml")
	kind, num, ok2 := strings.Cut(name, "-")
	n, err := strconv.Atoi(num)
	parts, size := 0, s.partSize
	if ok && ok2 && err == nil {
		parts = (sitemapCount(ix, kind) + size - 1) / size
	}
	if parts == 0 || n < 1 || n > parts || strconv.Itoa(n) != num {
		s.web.NotFoundPage(w, r)
		return
	}
	body := s.sitemaps.get(ix, name, func() []byte { return s.makeSitemapPart(ix, kind, n) })
	xmlHeaders(w)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// makeSitemapPart writes part n of kind of ix.
func (s *Site) makeSitemapPart(ix *index.Index, kind string, n int) []byte {
	lastmod := s.loaded.since(ix).Format(time.RFC3339)
	var b bytes.Buffer
	b.Grow(min(sitemapCount(ix, kind), s.partSize) * 120)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	base := xmlText(s.base)
	sitemapPaths(ix, kind, n, s.partSize, func(path string) {
		b.WriteString("<url><loc>")
		b.WriteString(base)
		b.WriteString(xmlText(path))
		b.WriteString("</loc><lastmod>")
		b.WriteString(lastmod)
		b.WriteString("</lastmod></url>\n")
	})
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func xmlHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
}

// xmlText escapes the characters XML text may not hold as they are.
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace

// robots is GET /robots.txt: everything may be crawled but search results
// and the API, at a page a second (Crawl-delay), and a comment says so and
// gives the per-IP limit past which pages answer 429; the sitemap index is
// named.
func (s *Site) robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	b := new(strings.Builder)
	b.WriteString("# Crawlers are welcome: please fetch at most one page a second (Crawl-delay),\n" +
		"# and start from the sitemap, which lists every perfume, brand and perfumer page.\n")
	if s.perMin > 0 {
		fmt.Fprintf(b, "# One address (for IPv6, one /64) may fetch at most %d pages a minute; past that\n"+
			"# pages answer 429 with Retry-After.\n", s.perMin)
	}
	fmt.Fprintf(b, "User-agent: *\nCrawl-delay: 1\nDisallow: /search\nDisallow: /api/\nDisallow: /goto/\nAllow: /\n\nSitemap: %s/sitemap.xml\n", s.base)
	io.WriteString(w, b.String())
}
