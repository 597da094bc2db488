package portal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/mail"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

const (
	httpBase  = "http://portal.test"
	httpsBase = "https://portal.test"
)

// start is the test clock's first moment.
var start = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// env is the portal in the areas' test environment, with a mailer that
// keeps what it sends and the Guard's limiter to peek at.
type env struct {
	*areatest.Env
	mail    *fakeMail
	windows *ratelimit.MemLimiter // the Guard's limiter, peeked at
	changed atomic.Int64          // KeysChanged calls
	portal  *portal.Portal
}

func newEnv(t *testing.T, base string, mod func(*portal.Config)) *env {
	t.Helper()
	e := &env{Env: areatest.New(t, base, start, "session", "192.0.2.1"), mail: &fakeMail{}}
	e.windows = ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: e.Clock.Now})
	cfg := portal.Config{
		Web: e.Web, Accounts: e.Faults, Keys: e.Faults, Mail: e.mail,
		Report: func(ctx context.Context, prefix string, days int) (usage.Report, error) {
			return meter.BuildReport(ctx, e.Faults, prefix, e.Clock.Now(), days, nil)
		},
		Hourly: e.Faults.HourlyUsage,
		Windows: func(ctx context.Context, k apikey.Key) (ratelimit.Decision, error) {
			return e.windows.Peek(ctx, k.Prefix, apikey.DefaultTiers().For(k))
		},
		KeysChanged: func() { e.changed.Add(1) },
		Now:         e.Clock.Now,
	}
	if mod != nil {
		mod(&cfg)
	}
	var err error
	if e.portal, err = portal.New(cfg); err != nil {
		t.Fatal(err)
	}
	e.Mount(e.portal)
	return e
}

// askLink posts the sign-in form and returns the token of the link mailed.
func (e *env) askLink(email string) string {
	e.T.Helper()
	before := e.mail.count()
	rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {email}}, "")
	if rec.Code != http.StatusOK || e.mail.count() != before+1 {
		e.T.Fatalf("ask a link for %s: %d, %d messages\n%s", email, rec.Code, e.mail.count(), rec.Body)
	}
	return tokenOf(e.T, e.mail.last().Text)
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
	return e.Do("POST", "/developer/signin", url.Values{"token": {token}}, "")
}

// signIn signs email in (a minute later each time, so the tests of other
// things do not meet the sign-in limits) and returns the session cookie.
func (e *env) signIn(email string) string {
	e.T.Helper()
	e.Clock.Add(time.Minute) // past the per-address minute window
	rec := e.useLink(e.askLink(email))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/developer/keys" {
		e.T.Fatalf("sign in %s: %d %q\n%s", email, rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	c := areatest.CookieOf(rec, e.Cookie)
	if c == nil || c.MaxAge < 0 {
		e.T.Fatalf("sign in %s: no session cookie in %v", email, rec.Result().Cookies())
	}
	return c.Value
}

// follow follows the redirect rec answers, as a browser does: a GET of
// its Location with the session cookie and the cookies rec set (the new
// key's flash). A rec that is not a redirect is returned as it is.
func (e *env) follow(rec *httptest.ResponseRecorder, session string) *httptest.ResponseRecorder {
	e.T.Helper()
	if rec.Code != http.StatusSeeOther {
		return rec
	}
	cookies := []string{e.Cookie + "=" + session}
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge >= 0 && c.Value != "" {
			cookies = append(cookies, c.Name+"="+c.Value)
		}
	}
	return e.Do("GET", rec.Header().Get("Location"), nil, "", "Cookie", strings.Join(cookies, "; "))
}

// createKey makes a key and returns its secret and prefix, read from the
// page the form redirects to.
func (e *env) createKey(session string, form url.Values) (secret, prefix string) {
	e.T.Helper()
	rec := e.follow(e.Do("POST", "/developer/keys", form, session), session)
	secret = areatest.SecretRE.FindString(rec.Body.String())
	if rec.Code != http.StatusOK || secret == "" {
		e.T.Fatalf("create key %v: %d\n%s", form, rec.Code, rec.Body)
	}
	pk, err := apikey.ParseKey(secret)
	if err != nil {
		e.T.Fatal(err)
	}
	return secret, pk.Prefix
}

// fakeMail records the messages sent; fail makes Send fail.
type fakeMail struct {
	mu   sync.Mutex
	sent []mail.Message
	fail bool
}

func (m *fakeMail) Send(_ context.Context, msg mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return areatest.ErrDown
	}
	m.sent = append(m.sent, msg)
	return nil
}

func (m *fakeMail) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sent)
}

func (m *fakeMail) last() mail.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sent[len(m.sent)-1]
}
