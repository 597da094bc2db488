package site_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestPageKinds: every kind of page answers 200 with the head a page needs
// (one h1, a title, a canonical link, Open Graph) and unknown slugs, names
// and pages past the end answer the 404 page.
func TestPageKinds(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct {
		path, title, contains string
	}{
		{"/", "Fragrance Data Service", `role="search"`},
		{"/search?q=sauvage+dior", "Search", `href="/perfumes/dior-sauvage"`},
		{"/search?q=sauvage&page=2", "Search", `rel="prev"`},
		{"/search", "Search", "Type a perfume"},
		{"/perfumes/dior-sauvage", "Sauvage by Dior", `href="/brands/dior"`},
		{"/brands", "Brands", `href="/brands/dior"`},
		{"/brands?page=2", "Brands", `rel="prev"`},
		{"/brands/dior", "Dior", `href="/perfumes/dior-sauvage"`},
		{"/brands/dior?page=2", "Dior", `rel="prev"`},
		{"/perfumers", "Perfumers", `href="/perfumers/`},
		{"/perfumers/francois-demachy", "François Demachy", `href="/perfumes/dior-sauvage"`},
		{"/notes", "Notes", `href="/notes/`},
		{"/notes/bergamot", "Bergamot", `href="/perfumes/`},
		{"/accords", "Accords", `href="/accords/`},
		{"/accords/woody", "woody", `href="/perfumes/`},
		{"/privacy", "Privacy", "Cookie settings"},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", tt.path)
		body := rec.Body.String()
		if rec.Code != 200 {
			t.Errorf("GET %s = %d", tt.path, rec.Code)
			continue
		}
		if n := strings.Count(body, "<h1"); n != 1 {
			t.Errorf("%s: %d h1", tt.path, n)
		}
		m := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(body)
		if m == nil || !strings.Contains(m[1], tt.title) {
			t.Errorf("%s: title %v, want it to name %q", tt.path, m, tt.title)
		}
		if !strings.Contains(body, tt.contains) {
			t.Errorf("%s: body lacks %s", tt.path, tt.contains)
		}
		if !strings.Contains(tt.path, "search") && (!strings.Contains(body, `<link rel="canonical" href="https://fragrance.example/`) ||
			!strings.Contains(body, `<meta property="og:title"`)) {
			t.Errorf("%s: no canonical link or Open Graph", tt.path)
		}
	}
	for _, path := range []string{"/perfumes/no-such-perfume", "/brands/no-such-brand", "/perfumers/nobody-at-all",
		"/notes/no-such-note-x", "/accords/no-such-accord-x", "/brands?page=999", "/brands/dior?page=999",
		"/search?q=sauvage&page=999", "/brands?page=x", "/no/such/path"} {
		if rec := servetest.Do(t, h, "GET", path); rec.Code != 404 || !strings.Contains(rec.Body.String(), "Page not found") {
			t.Errorf("GET %s = %d", path, rec.Code)
		}
	}
	rec := servetest.Do(t, h, "GET", "/notes/Pink%20Pepper?page=2")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/notes/pink-pepper?page=2" {
		t.Errorf("note by another spelling = %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

// TestPerfumePage: the product page shows what the issue lists.
func TestPerfumePage(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/perfumes/dior-sauvage").Body.String()
	for _, want := range []string{
		`<title>Sauvage by Dior · Fragrance Data Service</title>`,
		`<link rel="canonical" href="https://fragrance.example/perfumes/dior-sauvage">`,
		`<meta property="og:type" content="product">`,
		`<meta property="og:image" content="https://fragrance.example/img/perfume/31861.jpg">`,
		`src="https://fragrance.example/img/perfume/31861.jpg" alt="Bottle of Sauvage by Dior"`,
		`<strong>3.86</strong> of 5 from 32,551 ratings`,
		`fill="#83C928"`, // an accord bar in its colour
		`<h3>Top notes</h3>`, `<h3>Base notes</h3>`, `href="/notes/calabrian-bergamot"`,
		`aria-labelledby="seasons-t"`, `<th scope="row">Winter</th>`, `<th scope="row">Night</th>`,
		`Longevity`, `Sillage`, `href="/perfumers/`,
		`<h2 id="similar-h">Similar perfumes</h2>`, `<h2 id="dupes-h">Cheaper alternatives</h2>`,
		`href="https://fragrance.example/goto/dior-sauvage"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the perfume page lacks %s", want)
		}
	}
}

// TestSiteSearchRanksAsTheAPI: /search and /api/search list what
// /api/perfumes?q= lists, in its order.
func TestSiteSearchRanksAsTheAPI(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for _, q := range []string{"sauvage", "tobacco van", "ysl libre", "bleu chanel"} {
		api := servetest.Decode(t, servetest.Do(t, h, "GET", "/api/perfumes?limit=8&q="+url.QueryEscape(q)))["data"].([]any)
		var site struct {
			Perfumes []struct{ Name, Brand, Slug, Image, ImageTransparent string }
		}
		rec := servetest.Do(t, h, "GET", "/api/search?q="+url.QueryEscape(q))
		if err := json.Unmarshal(rec.Body.Bytes(), &site); err != nil || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("/api/search?q=%s: %v %v", q, err, rec.Header())
		}
		page := servetest.Do(t, h, "GET", "/search?q="+url.QueryEscape(q)).Body.String()
		links := regexp.MustCompile(`<a href="/perfumes/([^"]+)"><strong>`).FindAllStringSubmatch(page, -1)
		if len(site.Perfumes) != len(api) || len(links) < len(api) {
			t.Fatalf("%q: api %d, site search %d, page %d", q, len(api), len(site.Perfumes), len(links))
		}
		for i, it := range api {
			slug := it.(map[string]any)["slug"].(string)
			if site.Perfumes[i].Slug != slug || links[i][1] != slug || site.Perfumes[i].Image != it.(map[string]any)["image"] {
				t.Errorf("%q #%d: api %s, site search %s, page %s", q, i, slug, site.Perfumes[i].Slug, links[i][1])
			}
		}
	}
}

// TestPerfumePageKept: a perfume page asked again by a visitor of the same
// kind is served from its kept rendering, and reads exactly as the
// template renders it for that visitor, with a nonce of its own that is
// the CSP's; visitors of other kinds (cookie choice, address, query) get
// their own page, whatever was kept before them.
func TestPerfumePageKept(t *testing.T) {
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Analytics = `<script src="https://stats.example/a.js" defer></script>`
	})
	const path = "/perfumes/dior-sauvage"
	// Two kinds share a group when their pages must read the same: the
	// layout does not show the day of a choice, so visitors who chose
	// alike on different days share a kept rendering.
	kinds := []struct{ group, target, cookie string }{
		{"no choice", path, ""},
		{"necessary", path, "consent=necessary:2026-01-01"},
		{"necessary", path, "consent=necessary:2026-02-02"},
		{"analytics", path, "consent=necessary.analytics:2026-01-01"},
		{"with a query", path + "?ref=a%26b", ""},
	}
	get := func(target, cookie string, header ...string) (body, etag string, code int) {
		t.Helper()
		if cookie != "" {
			header = append(header, "Cookie", cookie)
		}
		rec := servetest.Do(t, h, "GET", target, header...)
		if rec.Code == http.StatusNotModified {
			return "", rec.Header().Get("ETag"), rec.Code
		}
		csp := rec.Header().Get("Content-Security-Policy")
		m := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`).FindStringSubmatch(csp)
		// Errorf, not Fatalf: get also runs on goroutines of its own.
		if rec.Code != http.StatusOK || m == nil {
			t.Errorf("GET %s (%q) = %d, CSP %q", target, cookie, rec.Code, csp)
			return "", "", rec.Code
		}
		b := rec.Body.String()
		for _, n := range regexp.MustCompile(`nonce="([^"]*)"`).FindAllStringSubmatch(b, -1) {
			if n[1] != m[1] {
				t.Errorf("GET %s (%q): a script's nonce %q is not the CSP's %q", target, cookie, n[1], m[1])
			}
		}
		if rec.Header().Get("Content-Length") != strconv.Itoa(len(b)) {
			t.Errorf("GET %s: Content-Length %s for %d bytes", target, rec.Header().Get("Content-Length"), len(b))
		}
		return strings.ReplaceAll(b, m[1], "NONCE"), rec.Header().Get("ETag"), rec.Code
	}
	// Every kind twice in a row (rendered, then kept), then in turns, so
	// that each kind finds another's rendering kept. The other day's
	// choice comes first after the analytics kind: it is then rendered
	// afresh, and must read as the first day's.
	want := map[string]string{}
	etags := map[string]string{}
	seq := []int{0, 0, 1, 1, 3, 3, 2, 2, 4, 4, 0, 3, 1, 0, 0, 3, 2}
	for _, i := range seq {
		k := kinds[i]
		body, etag, _ := get(k.target, k.cookie)
		if w, ok := want[k.group]; !ok {
			want[k.group], etags[k.group] = body, etag
		} else if body != w || etag != etags[k.group] {
			t.Errorf("%s (%q): the page differs from the first of its group (ETag %s, then %s)", k.group, k.cookie, etags[k.group], etag)
		}
		if _, _, code := get(k.target, k.cookie, "If-None-Match", etag); code != http.StatusNotModified {
			t.Errorf("%s: If-None-Match its ETag = %d", k.group, code)
		}
	}
	// Served at once to many visitors of one kind, the kept rendering
	// stays as it was (each answer fills a copy with its nonce).
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if body, _, _ := get(path, kinds[3].cookie); body != want[kinds[3].group] {
					t.Error("a page served at the same time as others differs")
					return
				}
			}
		})
	}
	wg.Wait()
	if want["no choice"] == want["necessary"] || want["necessary"] == want["analytics"] || want["no choice"] == want["with a query"] {
		t.Error("visitors of different kinds got the same page")
	}
	if !strings.Contains(want["with a query"], `name="back" value="/perfumes/dior-sauvage?ref=a%26b"`) {
		t.Error("the banner of a page with a query does not return to it")
	}
}
