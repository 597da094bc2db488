// Package web is the ground every page of the service stands on, and the
// service's own pages. The ground: the shared layout (header, navigation,
// footer, landmarks, the cookie banner), the icon (favicon.svg and
// /favicon.ico), embedded assets under hashed names, the security headers and the per-answer CSP nonce, cookie consent
// (POST /consent, /privacy), rendering with ETags, the 404 and 500 pages
// and the helpers of list pages. The areas stand beside it, one package
// each, and render through it: the public website (web/site) and the
// developer portal (web/portal); the admin dashboard will join them. The
// ground also draws the areas' bar charts (BarChart). The service's
// own pages: the buy links (/goto/{slug}), the error reference that
// problem "type" links point to, and the changelog as a page and as JSON.
//
// Pages are server-rendered with html/template from embedded files. They
// read the catalogue through the in-memory index, never a store.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/problem"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed changelog.json
var changelogJSON []byte

// Release is one version of the changelog: its number, the day it was
// made (YYYY-MM-DD, the date of its last commit), and what it changed, the
// newest version first. The newest is the service's version, which the
// OpenAPI document and X-API-Version carry.
type Release struct {
	Version string   `json:"version"`
	Date    string   `json:"date"`
	Changes []string `json:"changes"`
}

// Config holds the pages' dependencies.
type Config struct {
	// Catalogue is the served catalogue (required for /goto).
	Catalogue *index.Holder
	// ShopURL is the buy-link template; {brand}, {name}, {slug} and {id} are
	// replaced by query-escaped values. Default DefaultShopURL.
	ShopURL string
	// Click counts a buy-link click of a perfume (by numeric id) made by
	// the request r, if set; it decides whether the click counts (serve
	// counts one a client address, perfume and day).
	Click func(r *http.Request, perfumeID int64)
	// BaseURL is the public base URL (canonical links, Open Graph,
	// sitemaps); https there marks the consent cookie Secure.
	BaseURL string
	// ImageURL is an image URL of the image host, from which the pages'
	// CSP allows images (when it is another origin than BaseURL).
	ImageURL string
	// Analytics is the operator's analytics snippet (HTML with <script>
	// elements), put in pages only after the visitor consented to
	// analytics, each script with the answer's CSP nonce. Empty: none.
	Analytics string
	// Logger receives the failures of pages; default discards.
	Logger *slog.Logger
	// Now is the clock (consent dates); default time.Now.
	Now func() time.Time
}

// Ground is the ground of the pages and the service's own pages.
type Ground struct {
	cfg           Config
	log           *slog.Logger
	now           func() time.Time
	base          string
	imageOrigin   string
	apiOrigin     string // the base URL's origin, where the playground sends requests
	secureCookies bool
	placeholder   string        // stands for the nonce until an answer's own replaces it
	analytics     template.HTML // with placeholder nonces
	assets        *assets
	icon          asset // /favicon.ico
	layout        *template.Template
	own           *Templates
	changelog     []Release
}

// New parses the embedded layout, templates, assets and changelog.
func New(cfg Config) (*Ground, error) {
	s := &Ground{cfg: cfg, log: cfg.Logger, now: cfg.Now, base: strings.TrimRight(cfg.BaseURL, "/")}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.secureCookies = strings.HasPrefix(s.base, "https://")
	s.apiOrigin = originOf(s.base)
	if o := originOf(cfg.ImageURL); o != "" && o != s.apiOrigin {
		s.imageOrigin = o
	}
	s.placeholder = newNonce()
	if len(s.placeholder) != nonceLen {
		return nil, fmt.Errorf("web: nonce length %d", len(s.placeholder))
	}
	if cfg.Analytics != "" {
		a, err := nonced(cfg.Analytics, s.placeholder)
		if err != nil {
			return nil, err
		}
		s.analytics = template.HTML(a)
	}
	if err := json.Unmarshal(changelogJSON, &s.changelog); err != nil {
		return nil, fmt.Errorf("web: changelog: %w", err)
	}
	for _, r := range s.changelog {
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil || r.Version == "" || len(r.Changes) == 0 {
			return nil, fmt.Errorf("web: changelog: version %q needs a number, a date (YYYY-MM-DD) and its changes", r.Version)
		}
	}
	var err error
	if s.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if s.icon.body, err = iconICO(16, 32, 48); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(s.icon.body)
	s.icon.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
	if s.layout, err = template.New("").Funcs(s.funcs()).ParseFS(templateFS, "templates/layout.html"); err != nil {
		return nil, fmt.Errorf("web: layout: %w", err)
	}
	if s.own, err = s.Templates(templateFS, nil, "errors", "changelog", "privacy", "404", "500", "message"); err != nil {
		return nil, err
	}
	return s, nil
}

// nonced gives every <script> element of an analytics snippet the nonce
// attribute; a snippet without one is refused (it would never run).
func nonced(snippet, nonce string) (string, error) {
	if !strings.Contains(strings.ToLower(snippet), "<script") {
		return "", fmt.Errorf("web: the analytics snippet has no <script> element")
	}
	var b strings.Builder
	rest := snippet
	for {
		i := strings.Index(strings.ToLower(rest), "<script")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i+len("<script")])
		b.WriteString(` nonce="` + nonce + `"`)
		rest = rest[i+len("<script"):]
	}
}

// Changelog returns the releases, newest first.
func (s *Ground) Changelog() []Release { return s.changelog }

// BaseURL is the public base URL, without a trailing slash.
func (s *Ground) BaseURL() string { return s.base }

// Register hands each route of the ground and of the service's own pages
// to handle with its pattern and the name logs and metrics know it by.
func (s *Ground) Register(handle func(pattern, name string, h http.Handler)) {
	page := func(pattern, name string, h http.HandlerFunc) { handle(pattern, name, s.Secure(h)) }
	handle("/goto/{slug}", "goto", s.Secure(problem.GetOnly(http.HandlerFunc(s.gotoShop))))
	page("GET /docs/errors", "docs.errors", func(w http.ResponseWriter, r *http.Request) {
		s.own.Render(w, r, http.StatusOK, "errors", Page{Title: "Errors · Fragrance Data Service", Path: "/docs/errors", Data: problem.Codes})
	})
	page("GET /changelog", "changelog", func(w http.ResponseWriter, r *http.Request) {
		s.own.Render(w, r, http.StatusOK, "changelog", Page{Title: "Changelog · Fragrance Data Service", Path: "/changelog", Data: s.changelog})
	})
	handle("GET /changelog.json", "changelog.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(changelogJSON)
	}))
	page("GET /assets/{file}", "assets", s.assets.serve(s).ServeHTTP)
	page("GET /privacy", "privacy", s.privacy)
	page("GET /favicon.ico", "favicon", s.favicon)
	handle("POST /consent", "consent", s.Secure(http.NewCrossOriginProtection().Handler(http.HandlerFunc(s.saveConsent))))
}

// privacy is GET /privacy: every cookie the service can set, and the
// cookie settings (the footer's "Cookie settings" link leads here).
func (s *Ground) privacy(w http.ResponseWriter, r *http.Request) {
	s.own.Render(w, r, http.StatusOK, "privacy", Page{
		Title:       "Privacy and cookies · Fragrance Data Service",
		Description: "Which cookies the Fragrance Data Service sets, why, for how long, and your cookie settings.",
		Path:        "/privacy",
		Crumbs:      []Crumb{{"Home", "/"}, {"Privacy and cookies", "/privacy"}},
		Data:        struct{ Cookies []Cookie }{Cookies},
	})
}

// NotFound answers every path no route serves: the 404 page.
func (s *Ground) NotFound() http.Handler {
	return s.Secure(http.HandlerFunc(s.NotFoundPage))
}
