// Package docs is the developer documentation: the getting-started guide
// (/docs), the API reference rendered from the OpenAPI document
// (/docs/reference), the interactive playground (/developer/playground)
// and the pricing page (/pricing). It knows the OpenAPI document (every
// endpoint, parameter and answer, so a new endpoint appears by itself),
// the tiers' limits as the limiter applies them and the operator's
// prices; never a store, never a key's secret. It stands on the ground of
// package web (layout, assets, security headers, consent, rendering).
//
// The playground works without JavaScript as a code generator: its forms
// submit to the page itself, which writes the request's code in Go. With
// its script (assets/playground.js) it sends the request from the browser
// to the API and shows the answer.
package docs

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
)

//go:embed templates/*.html templates/*.md
var templateFS embed.FS

// The paths of the pages (Register lists them as patterns too).
const (
	guidePath      = "/docs"
	referencePath  = "/docs/reference"
	playgroundPath = "/developer/playground"
	pricingPath    = "/pricing"
	portalPath     = "/developer"
)

// Config holds the pages' dependencies.
type Config struct {
	// Web is the ground the pages render on (required).
	Web *web.Ground
	// OpenAPI is the OpenAPI document the API serves (required).
	OpenAPI []byte
	// Tiers returns the tiers' limits in force (the access Guard's
	// Tiers); nil: the contract's defaults.
	Tiers func() apikey.Tiers
	// Prices are the operator's prices (--tier-prices); none: "ask".
	Prices Prices
	// ContactEmail is the operator's address for higher tiers
	// (--contact-email); empty: none shown.
	ContactEmail string
	// ImageBase is what image URLs start with (the image host, e.g.
	// https://cdn.example/img); the document's paths under /img are
	// requested there. Empty: the base URL and /img.
	ImageBase string
	// Keys returns the keys of the developer signed in on r; nil, or no
	// keys, when nobody is (the portal provides it).
	Keys func(r *http.Request) []web.KeyChoice
	// Credit returns the attribution the licence of the served data asks
	// for, which the pricing page shows (nil, or a zero Credit: none).
	Credit func() Credit
}

// Credit is the attribution a data licence asks of whoever shows the data:
// the credit itself, and the licence with its address.
type Credit struct {
	Text, Source, Licence, LicenceURL string
}

// Docs serves the developer documentation.
type Docs struct {
	web       *web.Ground
	doc       *Doc
	tiers     func() apikey.Tiers
	prices    Prices
	contact   string
	base      string
	imageBase string
	keys      func(r *http.Request) []web.KeyChoice
	credit    func() Credit
	pages     *web.Templates
	// reference is the reference's content, rendered once: it depends on
	// the document and the base URL only.
	reference template.HTML
}

// New reads the OpenAPI document and parses the pages' templates.
func New(cfg Config) (*Docs, error) {
	if cfg.Web == nil || len(cfg.OpenAPI) == 0 {
		return nil, fmt.Errorf("docs: New needs the web ground and the OpenAPI document")
	}
	doc, err := ParseDoc(cfg.OpenAPI)
	if err != nil {
		return nil, err
	}
	for _, e := range doc.Endpoints {
		if e.param(EndpointParam, "query") != nil || e.param(EndpointParam, "path") != nil {
			return nil, fmt.Errorf("docs: %s has a parameter named %q, which the playground's address uses", e.ID, EndpointParam)
		}
	}
	d := &Docs{web: cfg.Web, doc: doc, tiers: cfg.Tiers, prices: cfg.Prices, contact: cfg.ContactEmail,
		base: cfg.Web.BaseURL(), imageBase: strings.TrimRight(cfg.ImageBase, "/"), keys: cfg.Keys, credit: cfg.Credit}
	if d.tiers == nil {
		d.tiers = apikey.DefaultTiers
	}
	if d.imageBase == "" {
		d.imageBase = d.base + "/img"
	}
	if d.pages, err = cfg.Web.Templates(templateFS, funcs(), "guide", "reference", "cached", "playground", "pricing"); err != nil {
		return nil, err
	}
	if d.reference, err = d.pages.Content("reference", web.Page{Data: d.referenceData()}); err != nil {
		return nil, fmt.Errorf("docs: the reference: %w", err)
	}
	return d, nil
}

// funcs are the template functions of the pages.
func funcs() template.FuncMap {
	return template.FuncMap{
		"num64": func(n int64) string { return web.Thousands(int(n)) },
		"lower": strings.ToLower,
		"navLink": func(n nav, path, name string) navItem {
			return navItem{Path: path, Name: name, Current: n.Current == path}
		},
		"first": func(ex []Example) []Example { return ex[:min(1, len(ex))] },
	}
}

// navItem is one link of the sub-navigation.
type navItem struct {
	Path, Name string
	Current    bool
}

// Register hands each route of the pages to handle, with the name logs
// and metrics know it by: the package's whole route table.
func (d *Docs) Register(handle func(pattern, name string, h http.Handler)) {
	page := func(pattern, name string, h http.HandlerFunc) { handle(pattern, name, d.web.Secure(h)) }
	page("GET /docs", "docs.guide", d.guide)
	page("GET /docs/reference", "docs.reference", d.referencePage)
	page("GET /developer/playground", "docs.playground", d.playground)
	page("GET /pricing", "docs.pricing", d.pricing)
	page("GET /docs.md", "docs.markdown", d.docsMarkdownPage)
	page("GET /llms.txt", "docs.llms", d.llms)
}

// title is a page title with the site's name.
func title(parts ...string) string {
	return strings.Join(append(parts, "Fragrance Data Service"), " · ")
}

// nav is the docs' sub-navigation, with the current page marked.
type nav struct{ Current string }

// docsData is what every page's template reads: the sub-navigation and
// the page's own data.
type docsData struct {
	Nav  nav
	Data any
}

// guide is GET /docs: getting started.
func (d *Docs) guide(w http.ResponseWriter, r *http.Request) {
	d.pages.Render(w, r, http.StatusOK, "guide", web.Page{
		Title:       title("Getting started", "Docs"),
		Description: "Get an API key, make a first request, page through lists, handle errors and limits, show images and buy links.",
		Path:        guidePath,
		Markdown:    docsMarkdownPath,
		Crumbs:      []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Docs", Path: guidePath}},
		Data: docsData{Nav: nav{guidePath}, Data: guideData{
			Tiers: d.tierRows(), Doc: d.doc, KeyEnv: KeyEnv,
			First: State{Endpoint: d.doc.Endpoint("listPerfumes"), Values: map[string][]string{"q": {"sauvage dior"}, "limit": {"1"}}},
		}},
	})
}

// guideData is the guide's data.
type guideData struct {
	Tiers  []tierRow
	Doc    *Doc
	KeyEnv string
	// First is the first request the guide shows (nil Endpoint when the
	// document has no listPerfumes).
	First State
}

// FirstCurl is the curl command of the guide's first request.
func (g guideData) FirstCurl(base string) string {
	if g.First.Endpoint == nil {
		return ""
	}
	return g.First.Snippets(base, "")[0].Code
}

// referencePage is GET /docs/reference: the reference, rendered once.
func (d *Docs) referencePage(w http.ResponseWriter, r *http.Request) {
	d.pages.Render(w, r, http.StatusOK, "cached", web.Page{
		Title:       title("API reference", "Docs"),
		Description: "Every endpoint of the Fragrance Data Service API: parameters, answers and errors, with examples.",
		Path:        referencePath,
		Markdown:    docsMarkdownPath,
		Crumbs:      []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Docs", Path: guidePath}, {Name: "Reference", Path: referencePath}},
		Data:        d.reference,
	})
}

// pricing is GET /pricing: the tiers, their limits as configured, what
// they include and how to get them.
func (d *Docs) pricing(w http.ResponseWriter, r *http.Request) {
	d.pages.Render(w, r, http.StatusOK, "pricing", web.Page{
		Title:       title("Pricing"),
		Description: "The API's tiers, Free, Basic, Pro and Enterprise: their rate limits and how to get each.",
		Path:        pricingPath,
		Crumbs:      []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Pricing", Path: pricingPath}},
		Data: docsData{Nav: nav{pricingPath}, Data: struct {
			Tiers   []tierRow
			Contact string
			Credit  Credit
		}{d.tierRows(), d.contact, d.creditNow()}},
	})
}

// creditNow is the served data's attribution, if any.
func (d *Docs) creditNow() Credit {
	if d.credit == nil {
		return Credit{}
	}
	return d.credit()
}

// playground is GET /developer/playground: every endpoint's form, the
// current request's code, and (with the script) its answer.
func (d *Docs) playground(w http.ResponseWriter, r *http.Request) {
	st, err := d.doc.ReadState(r.URL.Query())
	status, msg := http.StatusOK, ""
	if err != nil {
		status, msg = http.StatusBadRequest, err.Error()
		if errors.Is(err, errUnknownEndpoint) {
			status = http.StatusNotFound
		}
	}
	var keys []web.KeyChoice
	if d.keys != nil {
		keys = d.keys(r)
	}
	d.pages.Render(w, r, status, "playground", web.Page{
		Title:       title("Playground", "Developers"),
		Description: "Try every endpoint of the API from the browser with your key, and copy the request as curl, JavaScript, Python or Go.",
		Path:        playgroundPath,
		NoIndex:     len(r.URL.RawQuery) > 0,
		Crumbs:      []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Developers", Path: portalPath}, {Name: "Playground", Path: playgroundPath}},
		Data:        docsData{Nav: nav{playgroundPath}, Data: d.playgroundData(st, msg, keys, web.ReadConsent(r).Preferences)},
	})
}
