// Package web serves the service's pages outside /api: the buy links
// (/goto/{slug}), the error reference that problem "type" links point to,
// and the changelog as a page and as JSON. Pages are server-rendered with
// html/template from embedded files. It reads the catalogue through the
// in-memory index, never a store.
package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/problem"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed changelog.json
var changelogJSON []byte

// Release is one version of the changelog.
type Release struct {
	Version string   `json:"version"`
	Changes []string `json:"changes"`
}

// Config holds the pages' dependencies.
type Config struct {
	// Catalogue is the served catalogue (required for /goto).
	Catalogue *index.Holder
	// ShopURL is the buy-link template; {brand}, {name}, {slug} and {id} are
	// replaced by query-escaped values. Default DefaultShopURL.
	ShopURL string
	// Click counts a buy-link click of a perfume (by numeric id), if set.
	Click func(perfumeID int64)
}

// Site serves the pages.
type Site struct {
	cfg       Config
	pages     map[string]*template.Template
	changelog []Release
}

// New parses the embedded templates and changelog.
func New(cfg Config) (*Site, error) {
	s := &Site{cfg: cfg, pages: map[string]*template.Template{}}
	if err := json.Unmarshal(changelogJSON, &s.changelog); err != nil {
		return nil, fmt.Errorf("web: changelog: %w", err)
	}
	for _, name := range []string{"errors", "changelog"} {
		t, err := template.ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return s, nil
}

// Changelog returns the releases, newest first.
func (s *Site) Changelog() []Release { return s.changelog }

// Register hands each page route to handle with its pattern and the name
// logs and metrics know it by: the route table of the pages.
func (s *Site) Register(handle func(pattern, name string, h http.Handler)) {
	handle("/goto/{slug}", "goto", problem.GetOnly(http.HandlerFunc(s.gotoShop)))
	handle("GET /docs/errors", "docs.errors", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.render(w, "errors", "Errors", problem.Codes)
	}))
	handle("GET /changelog", "changelog", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.render(w, "changelog", "Changelog", s.changelog)
	}))
	handle("GET /changelog.json", "changelog.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(changelogJSON)
	}))
}

// NotFound answers every path no route serves.
func (s *Site) NotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	})
}

func (s *Site) render(w http.ResponseWriter, page, title string, data any) {
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout", map[string]any{"Title": title, "Data": data}); err != nil {
		http.Error(w, "page failed to render", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(buf.Bytes())
}
