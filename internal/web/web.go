// Package web serves the service's pages outside /api: the error reference
// that problem "type" links point to, and the changelog as a page and as
// JSON. Pages are server-rendered with html/template from embedded files.
package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
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

// problemCode documents one problem code of the API.
type problemCode struct {
	Code   string
	Status int
	When   string
}

// problemCodes is the contract's error table.
var problemCodes = []problemCode{
	{"invalid_parameter", 400, "page or limit not a positive whole number; a parameter given twice; unknown gender, season or time; an accord strength outside 0–100; q or search longer than 200 characters; unknown accord or note names in match (with suggestions)"},
	{"missing_api_key", 401, "no key in X-API-Key, Authorization: Bearer or api_key"},
	{"invalid_api_key", 401, "a key that does not exist or fails its checksum"},
	{"revoked_api_key", 401, "a revoked key"},
	{"suspended_api_key", 403, "a key suspended for abuse"},
	{"origin_not_allowed", 403, "a browser key used from an origin it does not allow"},
	{"not_found", 404, "unknown perfume or perfumer, unknown path under /api"},
	{"method_not_allowed", 405, "any method but GET, HEAD and OPTIONS (with an Allow header)"},
	{"rate_limited", 429, "the minute window is full, or too many failed key checks from one client IP"},
	{"daily_limit_exceeded", 429, "the day window is full"},
	{"internal_error", 500, "a failure on our side; it is logged and never detailed"},
	{"unavailable", 503, "the catalogue is loading, or the key store cannot be reached (authentication fails closed)"},
}

// Site serves the pages.
type Site struct {
	pages     map[string]*template.Template
	changelog []Release
}

// New parses the embedded templates and changelog.
func New() (*Site, error) {
	s := &Site{pages: map[string]*template.Template{}}
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

// Handler routes the pages; anything else is a 404 page.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs/errors", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, "errors", "Errors", problemCodes)
	})
	mux.HandleFunc("GET /changelog", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, "changelog", "Changelog", s.changelog)
	})
	mux.HandleFunc("GET /changelog.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(changelogJSON)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	})
	return mux
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
