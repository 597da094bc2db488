package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// defaultSiteSearchLimit is the default of --site-search-limit.
const defaultSiteSearchLimit = 60

// defaultPageLimit is the default of --page-limit: five pages a second
// from one address, which no one reading pages and no crawler at
// robots.txt's pace (a page a second) reaches, and which leaves room for
// people behind one address (an office, a carrier's NAT).
const defaultPageLimit = 300

// maxAnalyticsSnippet bounds --analytics-snippet: a snippet is a few
// lines, and it goes into every page of a consenting visitor.
const maxAnalyticsSnippet = 64 << 10

// addWebFlags adds the website's flags to serve's.
func addWebFlags(f *flags, c *serveConfig) {
	c.analyticsSnippet = f.String("analytics-snippet", "", "file of the operator's analytics snippet (HTML with <script> elements), put in pages only after a visitor consents to analytics; each script gets the page's CSP nonce")
	c.portal = addPortalFlags(f)
	c.siteSearchLimit = f.Int("site-search-limit", defaultSiteSearchLimit, "requests a minute per client IP to the keyless site search (/api/search); 0: no limit")
	c.pageLimit = f.Int("page-limit", defaultPageLimit, "pages a minute per client IP (an IPv6 /64) of the website and the docs, their Markdown twins and the sitemaps, one window for all (robots.txt gives crawlers the pace); 0: no limit")
	c.docs = addDocsFlags(f)
	c.dashboard = addDashboardFlags(f)
}

// pages is the website as the server mounts it: the ground (package web)
// and the areas standing on it (web/site, web/portal, the docs, web/dashboard).
type pages struct {
	server.Routes
	ground *web.Ground
	public *site.Site // its Markdown twins are the MCP server's perfume resources too
}

// NotFound is the 404 page of every path nothing serves.
func (p pages) NotFound() http.Handler { return p.ground.NotFound() }

// pageDeps are what the areas need of the rest of the process.
type pageDeps struct {
	holder    *index.Holder
	urls      view.Builder
	imageBase string // the image host's base URL
	store     backend
	mailer    mail.Sender
	guard     *access.Guard
	meter     *meter.Meter
	log       *slog.Logger
	terms     *dataTerms // the bundled data's terms, for the pricing page
}

// newPages builds the ground and the areas on it: the public website, the
// developer portal, the developer docs (whose playground offers the
// signed-in developer's keys) and the admin dashboard.
func newPages(c *serveConfig, d pageDeps) (pages, error) {
	holder, urls, log := d.holder, d.urls, d.log
	var snippet string
	if *c.analyticsSnippet != "" {
		b, err := os.ReadFile(*c.analyticsSnippet)
		if err != nil {
			return pages{}, fmt.Errorf("--analytics-snippet: %w", err)
		}
		if len(b) > maxAnalyticsSnippet {
			return pages{}, fmt.Errorf("--analytics-snippet: %s is %d bytes; at most %d", *c.analyticsSnippet, len(b), maxAnalyticsSnippet)
		}
		snippet = string(b)
	}
	ground, err := web.New(web.Config{Catalogue: holder, ShopURL: *c.shopURL, Click: clickOnce(d.guard, d.meter), BaseURL: urls.Base(),
		ImageURL: urls.Image(1), Analytics: snippet, Logger: log})
	if err != nil {
		return pages{}, fmt.Errorf("--analytics-snippet: %w", err)
	}
	public, err := site.New(site.Config{Web: ground, Catalogue: holder, View: urls, PagesPerMinute: max(*c.pageLimit, 0)})
	if err != nil {
		return pages{}, err
	}
	contact, err := contactEmail(*c.docs.contactEmail)
	if err != nil {
		return pages{}, err
	}
	dev, err := newPortal(c.portal, contact, ground, d.store, d.mailer, d.guard, d.meter, log)
	if err != nil {
		return pages{}, err
	}
	docs, err := newDocs(c.docs, ground, d.guard.Tiers, d.imageBase, dev.Keys, d.terms)
	if err != nil {
		return pages{}, err
	}
	dashboard, err := newAdmin(c.dashboard, ground, d.store, d.guard, holder, log)
	if err != nil {
		return pages{}, err
	}
	keyless := server.Join(public, docs)
	if *c.pageLimit > 0 {
		keyless = limitedPages{routes: keyless, guard: d.guard, ground: ground, perMinute: int64(*c.pageLimit)}
	}
	return pages{Routes: server.Join(ground, keyless, dev, dashboard), ground: ground, public: public}, nil
}

// siteSearchLimit is the per-IP limit of /api/search, none for n ≤ 0.
func siteSearchLimit(g *access.Guard, n int) func(http.Handler) http.Handler {
	if n <= 0 {
		return nil
	}
	return func(h http.Handler) http.Handler { return g.LimitPerIP("search.site", int64(n), h) }
}

// clickOnce counts a buy-link click in m when it is the first of its
// client address (the per-IP limits' address: an IPv6 client's /64), its
// perfume and the last 24 hours (Guard.FirstClick): following a link again
// and again counts once.
func clickOnce(g *access.Guard, m *meter.Meter) func(r *http.Request, perfumeID int64) {
	return func(r *http.Request, perfumeID int64) {
		if g.FirstClick(r.Context(), g.ClientIP(r), perfumeID) {
			m.Click(perfumeID)
		}
	}
}

// PagesEndpoint is the name of the keyless pages' per-IP window
// (--page-limit): one window for every page, twin and sitemap.
const PagesEndpoint = "pages"

// limitedPages puts every route of routes behind the pages' per-IP window
// (Guard.AdmitAddress under PagesEndpoint, perMinute a minute; an IPv6
// client's /64): an admitted page carries the window's rate-limit
// headers, a refused one is the ground's short page with the refusal's
// status (429), Retry-After and headers, which a person and a crawler can
// both read. The assets, the buy links and the portal's and dashboard's
// pages (limited on their own) are not among routes.
type limitedPages struct {
	routes    server.Routes
	guard     *access.Guard
	ground    *web.Ground
	perMinute int64
}

// Register hands each route to handle behind the window.
func (l limitedPages) Register(handle func(pattern, name string, h http.Handler)) {
	l.routes.Register(func(pattern, name string, h http.Handler) {
		handle(pattern, name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a, f := l.guard.AdmitAddress(r.Context(), l.guard.AddressCall(r, PagesEndpoint), l.perMinute)
			if f != nil {
				f.SetHeaders(w.Header())
				msg := "Too many pages from your address. Crawlers are welcome at the pace robots.txt gives."
				if f.Limited() {
					msg = fmt.Sprintf("Too many pages from your address: at most %d a minute. Try again in %d seconds; crawlers are welcome at the pace robots.txt gives.",
						l.perMinute, f.RetryAfterSeconds())
				}
				l.ground.StatusPage(w, r, f.Status(), msg)
				return
			}
			a.SetHeaders(w.Header())
			h.ServeHTTP(w, r)
		}))
	})
}
