package portal_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

const (
	httpBase  = "http://portal.test"
	httpsBase = "https://portal.test"
)

// start is the test clock's first moment.
var start = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// env is the portal over fakes, behind a ServeMux as the server mounts it.
type env struct {
	t       *testing.T
	clock   *testclock.Clock
	store   *fakeStore
	mail    *fakeMail
	usage   *fakeUsage
	windows *ratelimit.MemLimiter // the Guard's limiter, peeked at
	changed atomic.Int64          // KeysChanged calls
	portal  *portal.Portal
	h       http.Handler
	cookie  string // the session cookie's name
	ip      string // the client address of requests
}

func newEnv(t *testing.T, base string, mod func(*portal.Config)) *env {
	t.Helper()
	clock := testclock.New(start)
	e := &env{t: t, clock: clock, store: newFakeStore(clock.Now), mail: &fakeMail{}, usage: &fakeUsage{now: clock.Now},
		windows: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: clock.Now}), cookie: "session", ip: "192.0.2.1"}
	if strings.HasPrefix(base, "https://") {
		e.cookie = "__Host-session"
	}
	ground, err := web.New(web.Config{BaseURL: base, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	cfg := portal.Config{
		Web: ground, Accounts: e.store, Keys: e.store, Mail: e.mail, Report: e.usage.Report, Hourly: e.usage.Hourly,
		Windows: func(ctx context.Context, k apikey.Key) (ratelimit.Decision, error) {
			return e.windows.Peek(ctx, k.Prefix, apikey.DefaultTiers().For(k))
		},
		KeysChanged: func() { e.changed.Add(1) },
		Now:         clock.Now,
	}
	if mod != nil {
		mod(&cfg)
	}
	if e.portal, err = portal.New(cfg); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	handle := func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) }
	ground.Register(handle)
	e.portal.Register(handle)
	mux.Handle("/", ground.NotFound())
	e.h = mux
	return e
}

// do sends a request, with form as its body when not nil, the session
// cookie when session is not empty, and header pairs; every HTML answer
// is checked as a page of the ground.
func (e *env) do(method, target string, form url.Values, session string, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.RemoteAddr = e.ip + ":4711"
	if session != "" {
		r.AddCookie(&http.Cookie{Name: e.cookie, Value: session})
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && method != http.MethodHead && rec.Code != http.StatusNotModified {
		checkPage(e.t, method+" "+target, rec)
	}
	return rec
}

// askLink posts the sign-in form and returns the token of the link mailed.
func (e *env) askLink(email string) string {
	e.t.Helper()
	before := e.mail.count()
	rec := e.do("POST", "/developer/signin/link", url.Values{"email": {email}}, "")
	if rec.Code != http.StatusOK || e.mail.count() != before+1 {
		e.t.Fatalf("ask a link for %s: %d, %d messages\n%s", email, rec.Code, e.mail.count(), rec.Body)
	}
	return tokenOf(e.t, e.mail.last().Text)
}

var tokenRE = regexp.MustCompile(`/developer/signin\?token=([A-Za-z0-9_-]+)`)

func tokenOf(t *testing.T, text string) string {
	t.Helper()
	m := tokenRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no sign-in link in %q", text)
	}
	return m[1]
}

// useLink posts the token as the Sign in button does.
func (e *env) useLink(token string) *httptest.ResponseRecorder {
	return e.do("POST", "/developer/signin", url.Values{"token": {token}}, "")
}

// signIn signs email in (a fresh IP each time, so the tests of other
// things do not meet the sign-in limits) and returns the session cookie.
func (e *env) signIn(email string) string {
	e.t.Helper()
	e.clock.Add(time.Minute) // past the per-address minute window
	rec := e.useLink(e.askLink(email))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/developer/keys" {
		e.t.Fatalf("sign in %s: %d %q\n%s", email, rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	c := sessionCookie(e.t, rec, e.cookie)
	if c == nil || c.MaxAge < 0 {
		e.t.Fatalf("sign in %s: no session cookie in %v", email, rec.Result().Cookies())
	}
	return c.Value
}

func sessionCookie(t *testing.T, rec *httptest.ResponseRecorder, name string) *http.Cookie {
	t.Helper()
	for _, c := range rec.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

var secretRE = regexp.MustCompile(`fds_[0-9A-Za-z]{49}`)

// createKey makes a key and returns its secret and prefix.
func (e *env) createKey(session string, form url.Values) (secret, prefix string) {
	e.t.Helper()
	rec := e.do("POST", "/developer/keys", form, session)
	secret = secretRE.FindString(rec.Body.String())
	if rec.Code != http.StatusOK || secret == "" {
		e.t.Fatalf("create key %v: %d\n%s", form, rec.Code, rec.Body)
	}
	pk, err := apikey.ParseKey(secret)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret, pk.Prefix
}

var (
	cspNonceRE = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)
	scriptRE   = regexp.MustCompile(`<script[^>]*>`)
	controlRE  = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idRE       = regexp.MustCompile(`\sid="([^"]+)"`)
	typeRE     = regexp.MustCompile(`\stype="([^"]+)"`)
)

// checkPage holds every HTML answer to the ground's rules: the layout's
// landmarks, one h1, the CSP nonce on every script and no inline style,
// unique ids, a label for every form control, and a full key only in an
// answer no cache keeps.
func checkPage(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.String()
	m := cspNonceRE.FindStringSubmatch(rec.Header().Get("Content-Security-Policy"))
	if m == nil {
		t.Errorf("%s: no CSP nonce in %q", what, rec.Header().Get("Content-Security-Policy"))
		return
	}
	for _, s := range scriptRE.FindAllString(body, -1) {
		if !strings.Contains(s, `nonce="`+m[1]+`"`) {
			t.Errorf("%s: a script without the nonce: %s", what, s)
		}
	}
	if strings.Contains(body, " style=") || strings.Contains(body, "<style") {
		t.Errorf("%s: inline style", what)
	}
	if n := strings.Count(body, "<h1"); n != 1 {
		t.Errorf("%s: %d h1", what, n)
	}
	for _, want := range []string{`<html lang="en">`, `class="skip" href="#main"`, `<main id="main"`, `aria-label="Main"`, "<footer"} {
		if !strings.Contains(body, want) {
			t.Errorf("%s: the layout lacks %s", what, want)
		}
	}
	seen := map[string]bool{}
	for _, id := range idRE.FindAllStringSubmatch(body, -1) {
		if seen[id[1]] {
			t.Errorf("%s: id %q twice", what, id[1])
		}
		seen[id[1]] = true
	}
	for _, loc := range controlRE.FindAllStringIndex(body, -1) {
		tag := body[loc[0]:loc[1]]
		typ := ""
		if tm := typeRE.FindStringSubmatch(tag); tm != nil {
			typ = tm[1]
		}
		if typ == "hidden" {
			continue
		}
		if id := idRE.FindStringSubmatch(tag); id != nil && strings.Contains(body, `for="`+id[1]+`"`) {
			continue
		}
		// A control inside its label.
		if open := strings.LastIndex(body[:loc[0]], "<label"); open >= 0 && !strings.Contains(body[open:loc[0]], "</label>") {
			continue
		}
		t.Errorf("%s: a form control without a label: %s", what, tag)
	}
	if secretRE.MatchString(body) && rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("%s: a key in an answer a cache may keep (Cache-Control %q)", what, rec.Header().Get("Cache-Control"))
	}
}

// mustContain fails unless body holds every want.
func mustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}
