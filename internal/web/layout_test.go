package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fragrance-data/fragrance/internal/web"
)

// TestAreaHeaderAndNoCookieChoice: an area that defines "header" shows it
// in place of the site's header (and its perfume search); a page that asks
// no cookie choice shows no banner and runs no analytics snippet, even to
// a visitor who consented to analytics, and its CSP allows no analytics
// sources; the same page asking a choice shows the banner.
func TestAreaHeaderAndNoCookieChoice(t *testing.T) {
	s, err := web.New(web.Config{BaseURL: "https://fragrance.example",
		Analytics: `<script src="https://stats.example/a.js" defer></script>`})
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"templates/page.html":   {Data: []byte(`{{define "content"}}<h1>Page</h1>{{end}}`)},
		"templates/_parts.html": {Data: []byte(`{{define "header"}}<header class="area-head"><nav aria-label="Main">Area</nav></header>{{end}}`)},
	}
	pages, err := s.Templates(fsys, nil, "page")
	if err != nil {
		t.Fatal(err)
	}
	get := func(p web.Page, cookie string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/area", nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		rec := httptest.NewRecorder()
		pages.Render(rec, req, http.StatusOK, "page", p)
		return rec
	}
	for _, cookie := range []string{"", "consent=necessary.analytics:2026-01-01"} {
		rec := get(web.Page{Title: "Area", NoCookieChoice: true}, cookie)
		body := rec.Body.String()
		if !strings.Contains(body, `<header class="area-head">`) || strings.Contains(body, `class="top"`) || strings.Contains(body, `id="top-q"`) {
			t.Errorf("cookie %q: not the area's header:\n%s", cookie, body)
		}
		if strings.Contains(body, `class="consent"`) || strings.Contains(body, `class="asking"`) {
			t.Errorf("cookie %q: the banner on a page that asks no cookie choice", cookie)
		}
		if strings.Contains(body, "stats.example") || strings.Contains(rec.Header().Get("Content-Security-Policy"), "strict-dynamic") {
			t.Errorf("cookie %q: analytics on a page that asks no cookie choice (CSP %q)", cookie, rec.Header().Get("Content-Security-Policy"))
		}
	}
	if body := get(web.Page{Title: "Area"}, "").Body.String(); !strings.Contains(body, `class="consent"`) {
		t.Error("a page that asks the choice shows no banner")
	}
	if body := get(web.Page{Title: "Area"}, "consent=necessary.analytics:2026-01-01").Body.String(); !strings.Contains(body, "stats.example") {
		t.Error("a page that asks the choice leaves out the analytics consented to")
	}
}
