// Package site is the public website: the home page, search, the perfume
// pages with their product markup, and the brand, perfumer, note and accord
// pages, with the sitemap and robots.txt. It stands on the ground of
// package web (layout, assets, security headers, consent, rendering) and
// reads the catalogue through the in-memory index and the URLs of package
// view, the same contracts the API answers from; never a store.
package site

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// templateFS holds the website's templates. templates/perfume.html is
// among them but not parsed by New: the site writes the perfume page with
// the Go generated from it (perfume_gen.go); tests execute it.
//
//go:embed templates/*.html
var templateFS embed.FS

// Config holds the website's dependencies; all are required.
type Config struct {
	// Web is the ground the pages render on.
	Web *web.Ground
	// Catalogue is the served catalogue.
	Catalogue *index.Holder
	// View builds the shapes, image and buy-link URLs and accord colours, as in the
	// API's answers.
	View view.Builder
	// SitemapPartSize is the most URLs a sitemap part lists; 0 or more
	// than MaxSitemapPart means MaxSitemapPart.
	SitemapPartSize int
	// PagesPerMinute is the per-IP limit of the pages the operator set
	// (serve's --page-limit), which robots.txt tells crawlers; 0: none.
	PagesPerMinute int
}

// Site serves the public pages.
type Site struct {
	web      *web.Ground
	cat      *index.Holder
	urls     view.Builder
	pages    *web.Templates
	base     string
	loaded   loaded
	partSize int
	perMin   int // Config.PagesPerMinute
	cache    pageCache
	lists    listsCache
	sitemaps sitemapParts
}

// The page sizes of the lists.
const (
	perfumesPerPage = 24
	namesPerPage    = 120
	// maxPage bounds the page parameter of every list.
	maxPage = 100_000
	// similarOnPage and dupesOnPage are the cards of a perfume page.
	similarOnPage = 6
	dupesOnPage   = 6
	// brandMoreOnPage are the cards of a perfume's brand on its page
	// when it has no similar perfume.
	brandMoreOnPage = 6
)

// New parses the website's templates.
func New(cfg Config) (*Site, error) {
	if cfg.Web == nil || cfg.Catalogue == nil {
		return nil, fmt.Errorf("site: New needs the web ground and the catalogue")
	}
	s := &Site{web: cfg.Web, cat: cfg.Catalogue, urls: cfg.View, base: cfg.Web.BaseURL(), partSize: cfg.SitemapPartSize,
		perMin: cfg.PagesPerMinute}
	if s.partSize <= 0 || s.partSize > MaxSitemapPart {
		s.partSize = MaxSitemapPart
	}
	if _, err := groups(); err != nil {
		return nil, err
	}
	var err error
	s.pages, err = cfg.Web.Templates(templateFS, funcs(),
		"home", "search", "names", "perfumes", "html", "taste")
	if err != nil {
		return nil, err
	}
	return s, nil
}

// funcs are the template functions of the website's pages.
func funcs() template.FuncMap {
	return template.FuncMap{
		"picture":     picture,
		"noteURL":     NoteURL,
		"accordURL":   AccordURL,
		"perfumeURL":  PerfumeURL,
		"brandURL":    BrandURL,
		"perfumerURL": PerfumerURL,
		"edge":        edge,
		"tasteForm":   newTasteForm,
	}
}

// Register hands each route of the website to handle, with the name logs
// and metrics know it by: the website's whole route table.
func (s *Site) Register(handle func(pattern, name string, h http.Handler)) {
	page := func(pattern, name string, h func(http.ResponseWriter, *http.Request, *index.Index)) {
		handle(pattern, name, s.web.Secure(s.ready(h)))
	}
	page("GET /{$}", "site.home", s.home)
	page("GET /search", "site.search", s.search)
	page("GET /taste", "site.taste", s.taste)
	page("GET /perfumes/{slug}", "site.perfume", s.perfume)
	page("GET /brands", "site.brands", s.brands)
	page("GET /brands/{slug}", "site.brand", s.brand)
	page("GET /perfumers", "site.perfumers", s.perfumers)
	page("GET /perfumers/{slug}", "site.perfumer", s.perfumer)
	page("GET /notes", "site.notes", s.notes)
	page("GET /notes/{name}", "site.note", s.note)
	page("GET /accords", "site.accords", s.accords)
	page("GET /accords/{name}", "site.accord", s.accord)
	page("GET /sitemap.xml", "site.sitemap", s.sitemapIndex)
	page("GET /sitemaps/{part}", "site.sitemap.part", s.sitemapPart)
	handle("GET /robots.txt", "site.robots", s.web.Secure(http.HandlerFunc(s.robots)))
}

// ready serves h with the loaded catalogue, or answers 503 until it is.
func (s *Site) ready(h func(http.ResponseWriter, *http.Request, *index.Index)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ix := s.cat.Load()
		if ix == nil {
			s.web.Unavailable(w, r)
			return
		}
		h(w, r, ix)
	})
}

// picture is the image a page shows of a perfume: the transparent WebP
// when it exists, else the JPEG, which always answers (never a 404 image).
func picture(transparentAvailable bool, transparent, jpeg string) string {
	if transparentAvailable {
		return transparent
	}
	return jpeg
}

// nameSegment is the path segment of a note or accord name: its slug when
// the slug folds back to the name ("pink-pepper"), else the folded name
// escaped (names in scripts the slug drops).
func nameSegment(name string) string {
	f := search.Fold(name)
	if slug := search.Slugify(name); slug != "" && search.Fold(slug) == f {
		return slug
	}
	return url.PathEscape(f)
}

// NoteURL is the path of a note's page.
func NoteURL(name string) string { return "/notes/" + nameSegment(name) }

// AccordURL is the path of an accord's page.
func AccordURL(name string) string { return "/accords/" + nameSegment(name) }

// PerfumeURL is the path of a perfume's page.
func PerfumeURL(slug string) string { return "/perfumes/" + url.PathEscape(slug) }

// BrandURL is the path of a brand's page.
func BrandURL(slug string) string { return "/brands/" + url.PathEscape(slug) }

// PerfumerURL is the path of a perfumer's page.
func PerfumerURL(slug string) string { return "/perfumers/" + url.PathEscape(slug) }

// title is a page title with the site's name.
func title(parts ...string) string {
	return strings.Join(append(parts, "Fragrance Data Service"), " · ")
}

// pageOf reads the page parameter; a bad one is the 404 page (ok false).
func (s *Site) pageOf(w http.ResponseWriter, r *http.Request) (int, bool) {
	p, ok := web.PageParam(r.URL, maxPage)
	if !ok {
		s.web.NotFoundPage(w, r)
	}
	return p, ok
}

// pastEnd answers the 404 page for a page after the last one (page 1 of
// an empty list is a page).
func (s *Site) pastEnd(w http.ResponseWriter, r *http.Request, page, pages int) bool {
	if page > 1 && page > pages {
		s.web.NotFoundPage(w, r)
		return true
	}
	return false
}

// pagePath is the canonical path of page n of a list at path.
func pagePath(path string, n int) string {
	if n <= 1 {
		return path
	}
	return fmt.Sprintf("%s?page=%d", path, n)
}
