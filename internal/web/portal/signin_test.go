package portal_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

var nonceAttrRE = regexp.MustCompile(`nonce="[A-Za-z0-9_-]{22}"`)

// TestSameAnswerKnownOrNot: asking for a link answers the same page for an
// address with an account and for one without; both get a link.
func TestSameAnswerKnownOrNot(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.signIn("known@example.com")
	e.Clock.Add(time.Minute)
	page := func(email string) (int, string) {
		rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {email}}, "")
		body := strings.ReplaceAll(rec.Body.String(), email, "EMAIL")
		return rec.Code, nonceAttrRE.ReplaceAllString(body, "NONCE")
	}
	sent := e.mail.count()
	c1, known := page("known@example.com")
	c2, unknown := page("stranger@example.com")
	if c1 != http.StatusOK || c1 != c2 || known != unknown {
		t.Errorf("known: %d, unknown: %d; pages equal: %v", c1, c2, known == unknown)
	}
	if e.mail.count() != sent+2 {
		t.Errorf("%d messages for two asks", e.mail.count()-sent)
	}
}

// TestBadLinks: a used, an expired, an unknown and a malformed link are
// refused with a page that offers a new one; a bad address is a 422 that
// keeps what was typed.
func TestBadLinks(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	token := e.askLink("dev@example.com")
	if rec := e.useLink(token); rec.Code != http.StatusSeeOther {
		t.Fatalf("first use = %d", rec.Code)
	}
	used := e.useLink(token)
	if used.Code != http.StatusGone || areatest.CookieOf(used, e.Cookie) != nil {
		t.Errorf("second use = %d, cookies %v", used.Code, used.Result().Cookies())
	}
	areatest.MustContain(t, "the used link's page", used.Body.String(), "does not work any more", "works once, for 15 minutes", `action="/developer/signin/link"`, "Send sign-in link")

	e.Clock.Add(time.Minute)
	late := e.askLink("dev@example.com")
	e.Clock.Add(15 * time.Minute)
	if rec := e.useLink(late); rec.Code != http.StatusGone {
		t.Errorf("a link used after 15 minutes = %d", rec.Code)
	}
	if rec := e.useLink(strings.Repeat("A", 43)); rec.Code != http.StatusGone {
		t.Errorf("an unknown link = %d", rec.Code)
	}
	for _, bad := range []string{"", "short", strings.Repeat("A", 44), strings.Repeat("*", 43)} {
		if rec := e.Do("GET", "/developer/signin?token="+url.QueryEscape(bad), nil, ""); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Send sign-in link") {
			t.Errorf("GET the link %q = %d", bad, rec.Code)
		}
		if rec := e.useLink(bad); rec.Code != http.StatusBadRequest {
			t.Errorf("POST the link %q = %d", bad, rec.Code)
		}
	}
	for _, bad := range []string{"", "not an address", "a@b", "Dev <dev@example.com>", "a@example.com, b@example.com"} {
		rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {bad}}, "")
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Type one email address") {
			t.Errorf("ask a link for %q = %d", bad, rec.Code)
		}
		if bad != "" && !strings.Contains(rec.Body.String(), `value="`+strings.ReplaceAll(strings.ReplaceAll(bad, "<", "&lt;"), ">", "&gt;")+`"`) {
			t.Errorf("the form for %q does not keep it", bad)
		}
	}
}

// TestCrossOriginRefused: every form of the portal refuses a post from
// another site (403 page), and does nothing.
func TestCrossOriginRefused(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.signIn("dev@example.com")
	_, prefix := e.createKey(session, url.Values{"name": {"K"}, "kind": {"server"}})
	e.Clock.Add(time.Minute)
	sent, changed := e.mail.count(), e.changed.Load()
	posts := []struct {
		path string
		form url.Values
	}{
		{"/developer/signin/link", url.Values{"email": {"dev@example.com"}}},
		{"/developer/signin", url.Values{"token": {strings.Repeat("A", 43)}}},
		{"/developer/signout", url.Values{}},
		{"/developer/signout/everywhere", url.Values{}},
		{"/developer/account/delete", url.Values{"confirm": {"dev@example.com"}}},
		{"/developer/keys", url.Values{"name": {"X"}, "kind": {"server"}}},
		{"/developer/keys/" + prefix + "/roll", url.Values{"grace": {"none"}}},
		{"/developer/keys/" + prefix + "/revoke", url.Values{}},
		{"/developer/keys/" + prefix + "/tier", url.Values{"tier": {"pro"}, "use_case": {"x"}}},
	}
	for _, p := range posts {
		for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}} {
			rec := e.Do("POST", p.path, p.form, session, h...)
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "sent from another site") {
				t.Errorf("POST %s with %s: %s = %d", p.path, h[0], h[1], rec.Code)
			}
		}
	}
	if e.mail.count() != sent || e.changed.Load() != changed || e.Key(prefix).State != apikey.Active {
		t.Error("a refused post changed something")
	}
	if rec := e.Do("GET", "/developer/keys", nil, session); rec.Code != http.StatusOK {
		t.Errorf("after the refused posts the session = %d", rec.Code)
	}
	// The portal's own forms pass.
	if rec := e.Do("POST", "/developer/keys", url.Values{"name": {"X"}, "kind": {"server"}}, session, "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Errorf("a same-origin post = %d", rec.Code)
	}
}

// limitPerIP stands in for access.Guard.AdmitAddress: perMinute requests
// a minute per client IP, refusals made by the access layer's refusal
// builder.
func limitPerIP(clock func() time.Time, perMinute int64) func(*http.Request) (access.Admission, *access.Refusal) {
	l := ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: clock})
	return func(r *http.Request) (access.Admission, *access.Refusal) {
		ip, _, _ := strings.Cut(r.RemoteAddr, ":")
		d, _ := l.Allow(r.Context(), "ip:signin:"+ip, apikey.Limits{PerMinute: perMinute})
		if !d.Allowed {
			return access.Admission{}, access.TooMany("Too many from this address.", d.RetryAfter(), d.Violated()...)
		}
		return access.Admission{Decision: d, ClientIP: ip}, nil
	}
}

// TestSignInLimits: sign-in links are limited per address (a minute's
// and an hour's) and per client IP; both answer a 429 page that says so,
// and send nothing.
func TestSignInLimits(t *testing.T) {
	e := newEnv(t, httpBase, func(c *portal.Config) {
		c.SignInPerAddress = portal.AddressLimits{PerMinute: 2, PerHour: 3}
	})
	ask := func(email string) *http.Response {
		t.Helper()
		return e.Do("POST", "/developer/signin/link", url.Values{"email": {email}}, "").Result()
	}
	for range 2 {
		if res := ask("dev@example.com"); res.StatusCode != http.StatusOK {
			t.Fatalf("ask = %d", res.StatusCode)
		}
	}
	sent := e.mail.count()
	rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {"dev@EXAMPLE.com"}}, "")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || e.mail.count() != sent {
		t.Fatalf("third ask in a minute = %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	areatest.MustContain(t, "the per-address 429", rec.Body.String(), "Too many sign-in links were asked for this address", "at most 2 a minute and 3 an hour")
	if res := ask("other@example.com"); res.StatusCode != http.StatusOK {
		t.Errorf("another address = %d", res.StatusCode)
	}
	e.Clock.Add(time.Minute)
	if res := ask("dev@example.com"); res.StatusCode != http.StatusOK {
		t.Errorf("a minute later = %d", res.StatusCode)
	}
	if res := ask("dev@example.com"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the fourth of the hour = %d", res.StatusCode)
	}

	// Per IP, whatever the address.
	e = newEnv(t, httpBase, func(c *portal.Config) { c.LimitPerIP = limitPerIP(func() time.Time { return start }, 2) })
	for i := range 2 {
		if res := ask("dev" + string(rune('a'+i)) + "@example.com"); res.StatusCode != http.StatusOK {
			t.Fatalf("ask %d = %d", i, res.StatusCode)
		}
	}
	rec = e.Do("POST", "/developer/signin/link", url.Values{"email": {"devz@example.com"}}, "")
	if rec.Code != http.StatusTooManyRequests || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || e.mail.count() != 2 {
		t.Fatalf("third ask from one IP = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	areatest.MustContain(t, "the per-IP 429", rec.Body.String(), "Too many sign-in links were asked for from your network")
	if strings.Contains(rec.Body.String(), "rate_limited") {
		t.Error("the per-IP 429 page carries the wrapper's JSON")
	}
	e.IP = "198.51.100.7"
	if res := ask("devz@example.com"); res.StatusCode != http.StatusOK {
		t.Errorf("another IP = %d", res.StatusCode)
	}
}

// TestCookieAttributes: the session cookie is HttpOnly and SameSite=Lax;
// over https it is Secure and __Host- (Path=/, no Domain); over http it is
// neither. /privacy lists it.
func TestCookieAttributes(t *testing.T) {
	for _, tc := range []struct {
		base, name string
		secure     bool
	}{{httpBase, "session", false}, {httpsBase, "__Host-session", true}} {
		e := newEnv(t, tc.base, nil)
		rec := e.useLink(e.askLink("dev@example.com"))
		c := areatest.CookieOf(rec, tc.name)
		if c == nil {
			t.Fatalf("%s: no cookie %s in %v", tc.base, tc.name, rec.Result().Cookies())
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tc.secure || c.Path != "/" || c.Domain != "" || c.MaxAge <= 0 {
			t.Errorf("%s: cookie %+v", tc.base, c)
		}
		if len(rec.Result().Cookies()) != 1 {
			t.Errorf("%s: cookies %v", tc.base, rec.Result().Cookies())
		}
		if !strings.Contains(e.mail.last().Text, tc.base+"/developer/signin?token=") {
			t.Errorf("%s: the link is not on the base URL: %s", tc.base, e.mail.last().Text)
		}
	}
	listed := false
	for _, c := range web.Cookies {
		listed = listed || (c.Name == "__Host-session" && c.Category == web.Necessary && strings.Contains(c.Purpose, "“session”"))
	}
	if !listed {
		t.Errorf("web.Cookies does not list the session cookie: %+v", web.Cookies)
	}
}
