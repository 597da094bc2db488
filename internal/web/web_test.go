package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/web"
)

func TestPages(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct {
		path, ctype string
		status      int
		contains    string
	}{
		{"/docs/errors", "text/html", 200, `id="daily_limit_exceeded"`},
		{"/changelog", "text/html", 200, `<h2 id="v1.7.0">1.7.0 <time class="muted" datetime="2026-12-05">2026-12-05</time></h2>`},
		{"/changelog.json", "application/json", 200, `"version": "1.0.0"`},
		{"/privacy", "text/html", 200, `<code>consent</code>`},
		{"/nope", "text/html", 404, "Page not found"},
		{"/goto/no-such-perfume", "text/html", 404, "Page not found"},
		{"/assets/style.0000000000.css", "text/html", 404, "Page not found"},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", tt.path)
		if rec.Code != tt.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.ctype) ||
			!strings.Contains(rec.Body.String(), tt.contains) {
			t.Errorf("GET %s = %d %q, body lacks %q", tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.contains)
		}
	}
	s, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Changelog(); len(got) != 8 || got[0].Version != "1.7.0" || got[0].Date != "2026-12-05" {
		t.Errorf("changelog = %+v", got)
	}
}

// TestErrorReference: the error reference lists every problem code of the
// table, its status and when it is answered, at the anchor problem "type"
// links point to.
func TestErrorReference(t *testing.T) {
	body := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/docs/errors").Body.String()
	for _, c := range problem.Codes {
		if !strings.Contains(body, `id="`+c.Code+`"`) || !strings.Contains(body, c.When) {
			t.Errorf("code %s is not documented as in the table", c.Code)
		}
		if want := problem.TypeURI(c.Code); !strings.HasPrefix(want, "/docs/errors#") {
			t.Errorf("type of %s is %s", c.Code, want)
		}
	}
}

var nonceRE = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)

// TestSecurityHeaders: every page carries the security headers; an HTML
// page's CSP has a nonce of its own (never 'unsafe-inline' scripts), and
// every script element of the page carries it.
func TestSecurityHeaders(t *testing.T) {
	h := servetest.NewServer(t, nil)
	seen := map[string]bool{}
	for _, path := range []string{"/privacy", "/privacy", "/nope", "/docs/errors"} {
		rec := servetest.Do(t, h, "GET", path)
		hd := rec.Header()
		if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Referrer-Policy") == "" {
			t.Errorf("%s: headers %v", path, hd)
		}
		csp := hd.Get("Content-Security-Policy")
		m := nonceRE.FindStringSubmatch(csp)
		if m == nil || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") ||
			!strings.Contains(csp, "object-src 'none'") {
			t.Fatalf("%s: CSP %q", path, csp)
		}
		if seen[m[1]] {
			t.Errorf("nonce %s used twice", m[1])
		}
		seen[m[1]] = true
		body := rec.Body.String()
		scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1)
		if len(scripts) == 0 {
			t.Fatalf("%s: no script", path)
		}
		for _, s := range scripts {
			if !strings.Contains(s, `nonce="`+m[1]+`"`) {
				t.Errorf("%s: script without the nonce: %s", path, s)
			}
		}
		if strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("%s: inline style (the CSP allows none)", path)
		}
		for _, want := range []string{`<html lang="en">`, `class="skip" href="#main"`, `<main id="main"`, "<header", "<footer", `aria-label="Main"`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: layout lacks %s", path, want)
			}
		}
	}
	rec := servetest.Do(t, h, "GET", "/changelog.json")
	if rec.Header().Get("Content-Security-Policy") != "" {
		// changelog.json is data, outside the pages' wrapper; fine either way.
		t.Logf("changelog.json CSP: %s", rec.Header().Get("Content-Security-Policy"))
	}
}

// TestAssets: assets are served under hashed names, immutable for a year;
// pages revalidate with an ETag that ignores the nonce (304, and no new
// CSP that would not match the kept page's nonce).
func TestAssets(t *testing.T) {
	h := servetest.NewServer(t, nil)
	page := servetest.Do(t, h, "GET", "/privacy")
	css := regexp.MustCompile(`href="(/assets/style\.[0-9a-f]{10}\.css)"`).FindStringSubmatch(page.Body.String())
	js := regexp.MustCompile(`src="(/assets/site\.[0-9a-f]{10}\.js)"`).FindStringSubmatch(page.Body.String())
	if css == nil || js == nil {
		t.Fatalf("page links no hashed assets:\n%s", page.Body.String())
	}
	for path, ctype := range map[string]string{css[1]: "text/css", js[1]: "text/javascript"} {
		rec := servetest.Do(t, h, "GET", path)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) ||
			rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s = %d %v", path, rec.Code, rec.Header())
		}
		if again := servetest.Do(t, h, "GET", path, "If-None-Match", rec.Header().Get("ETag")); again.Code != 304 {
			t.Errorf("%s revalidated = %d", path, again.Code)
		}
	}
	etag := page.Header().Get("ETag")
	if etag == "" || !strings.Contains(page.Header().Get("Cache-Control"), "no-cache") {
		t.Fatalf("page headers %v", page.Header())
	}
	again := servetest.Do(t, h, "GET", "/privacy", "If-None-Match", etag)
	if again.Code != 304 || again.Body.Len() != 0 || again.Header().Get("Content-Security-Policy") != "" {
		t.Errorf("revalidated page = %d, CSP %q", again.Code, again.Header().Get("Content-Security-Policy"))
	}
	// Another cookie choice is another page.
	other := servetest.Do(t, h, "GET", "/privacy", "If-None-Match", etag, "Cookie", "consent=necessary:2026-01-02")
	if other.Code != 200 {
		t.Errorf("page with a choice made = %d, want 200", other.Code)
	}
}

// TestNotFoundAndServerError: unknown paths get the 404 page; a page that
// panics gets the 500 page without its internals.
func TestNotFoundAndServerError(t *testing.T) {
	s, err := web.New(web.Config{BaseURL: "https://fragrance.example"})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("secret detail: db password") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/boom", nil))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret") || !strings.Contains(rec.Body.String(), "Something went wrong") {
		t.Errorf("500 page = %d\n%s", rec.Code, rec.Body.String())
	}
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("500 headers %v", rec.Header())
	}
	rec = httptest.NewRecorder()
	s.NotFound().ServeHTTP(rec, httptest.NewRequest("GET", "/no/such/page", nil))
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "/no/such/page") {
		t.Errorf("404 page = %d", rec.Code)
	}
}

// TestConsent: no cookie before a choice; each choice sets only the
// consent cookie (categories and date) and redirects back within the site,
// without JavaScript; a cross-origin post is refused.
func TestConsent(t *testing.T) {
	h := servetest.NewServer(t, nil)
	first := servetest.Do(t, h, "GET", "/privacy")
	if len(first.Result().Cookies()) != 0 || !strings.Contains(first.Body.String(), `class="consent"`) {
		t.Fatalf("before a choice: cookies %v, banner shown %v", first.Result().Cookies(), strings.Contains(first.Body.String(), `class="consent"`))
	}
	post := func(form url.Values, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/consent", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	tests := []struct {
		form       url.Values
		cats, back string
	}{
		{url.Values{"choice": {"reject"}, "back": {"/perfumes/dior-sauvage?x=1"}}, "necessary", "/perfumes/dior-sauvage?x=1"},
		{url.Values{"choice": {"accept"}, "back": {"https://evil.example/"}}, "necessary.preferences.analytics", "/"},
		{url.Values{"choice": {"save"}, "analytics": {"on"}, "back": {"//evil.example"}}, "necessary.analytics", "/"},
		{url.Values{"choice": {"save"}, "preferences": {"on"}}, "necessary.preferences", "/"},
	}
	for _, tt := range tests {
		rec := post(tt.form, "Sec-Fetch-Site", "same-origin")
		cks := rec.Result().Cookies()
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.back || len(cks) != 1 {
			t.Fatalf("%v: %d to %q, cookies %v", tt.form, rec.Code, rec.Header().Get("Location"), cks)
		}
		ck := cks[0]
		if ck.Name != web.ConsentCookie || !regexp.MustCompile(`^`+regexp.QuoteMeta(tt.cats)+`:\d{4}-\d\d-\d\d$`).MatchString(ck.Value) ||
			!ck.HttpOnly || !ck.Secure || ck.SameSite != http.SameSiteLaxMode || ck.MaxAge < 150*86400 {
			t.Errorf("%v: cookie %+v", tt.form, ck)
		}
		page := servetest.Do(t, h, "GET", "/privacy", "Cookie", ck.Name+"="+ck.Value)
		if strings.Contains(page.Body.String(), `class="consent"`) {
			t.Errorf("%v: the banner still shows after a choice", tt.form)
		}
		if _, date, _ := strings.Cut(ck.Value, ":"); !strings.Contains(page.Body.String(), "Your choice of "+date+": necessary") {
			t.Errorf("%v: /privacy does not show the choice of %s", tt.form, date)
		}
	}
	if rec := post(url.Values{"choice": {"accept"}}, "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusForbidden || len(rec.Result().Cookies()) != 0 {
		t.Errorf("cross-site post = %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	if rec := post(url.Values{"choice": {"maybe"}}); rec.Code != http.StatusBadRequest {
		t.Errorf("unknown choice = %d", rec.Code)
	}
	// Every cookie the service sets is listed on /privacy.
	for _, c := range web.Cookies {
		if !strings.Contains(first.Body.String(), "<code>"+c.Name+"</code>") {
			t.Errorf("/privacy does not list %s", c.Name)
		}
	}
}

// TestAnalyticsSnippet: the operator's snippet is in a page only after
// consent to analytics, each script with the answer's nonce, and the CSP
// then lets it load what it needs.
func TestAnalyticsSnippet(t *testing.T) {
	s, err := web.New(web.Config{BaseURL: "https://fragrance.example",
		Analytics: `<script src="https://stats.example/a.js" defer></script><SCRIPT>window.stats=1</SCRIPT>`})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
	get := func(cookie string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/privacy", nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	for _, cookie := range []string{"", "consent=necessary:2026-01-01", "consent=necessary.preferences:2026-01-01", "consent=analytics:2026-01-01"} {
		if body := get(cookie).Body.String(); strings.Contains(body, "stats.example") {
			t.Errorf("cookie %q: the snippet is in the page without consent to analytics", cookie)
		}
	}
	rec := get("consent=necessary.analytics:2026-01-01")
	nonce := nonceRE.FindStringSubmatch(rec.Header().Get("Content-Security-Policy"))
	body := rec.Body.String()
	if nonce == nil || !strings.Contains(body, `<script nonce="`+nonce[1]+`" src="https://stats.example/a.js"`) ||
		!strings.Contains(body, `<SCRIPT nonce="`+nonce[1]+`">window.stats=1`) {
		t.Fatalf("snippet not injected with the nonce:\n%s", body)
	}
	if !strings.Contains(rec.Header().Get("Content-Security-Policy"), "'strict-dynamic'") {
		t.Errorf("CSP %q", rec.Header().Get("Content-Security-Policy"))
	}
	if _, err := web.New(web.Config{Analytics: "<img src=x>"}); err == nil {
		t.Error("a snippet without a script was accepted")
	}
}

// TestMarkdownText: a name in a Markdown twin reads as text: no link,
// emphasis, code, HTML or table cell of its own, on one line.
func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		"Sauvage":                    "Sauvage",
		"[x](https://evil.example)":  `\[x\](https://evil.example)`,
		"*bold* _it_ `code` <b>a|b":  "\\*bold\\* \\_it\\_ \\`code\\` \\<b>a\\|b",
		"two\nlines\r\n  and spaces": "two lines and spaces",
		`back\slash`:                 `back\\slash`,
	} {
		if got := web.MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
}
