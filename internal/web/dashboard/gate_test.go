package dashboard_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
)

// testPrefix is a key prefix the route paths are filled with.
const testPrefix = "fds_Abcd1234"

// requestOf is a request a route serves: its method (PUT, which no other
// route takes, for a route of any method) and its path with the
// wildcards filled in.
func requestOf(p string) (method, path string) {
	method, path, ok := strings.Cut(p, " ")
	if !ok {
		method, path = "PUT", p
	}
	path = strings.NewReplacer("{prefix}", testPrefix, "{id}", "1").Replace(path)
	if strings.HasSuffix(path, "/") {
		path += "nothing-here"
	}
	return method, path
}

// form is a POST body with a reason, and every field a form of the
// dashboard takes.
var form = url.Values{"reason": {"testing"}, "note": {"testing"}, "tier": {"pro"}, "per_minute": {"1"}, "per_day": {"1"},
	"name": {"n"}, "upto": {"1"}, "secret": {"JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"}, "code": {goodCode}}

// seed gives the store something for every route to act on: an account
// with a key named testPrefix and a pending request for the pro tier.
func seed(e *env) { seedAsking(e, apikey.Pro) }

// seedAsking is seed with a request for tier.
func seedAsking(e *env, tier apikey.Tier) {
	e.T.Helper()
	a := e.addAccount("dev@example.com")
	e.addKey(apikey.Key{Prefix: testPrefix, Tier: apikey.Free, State: apikey.Active, AccountID: a.ID})
	e.addRequest(a.ID, testPrefix, tier)
}

// TestClosedWithoutAllowList: with no allow-list (or no client IP), every
// route of the dashboard answers the site's 404 page, whatever is sent.
func TestClosedWithoutAllowList(t *testing.T) {
	for name, mod := range map[string]func(*dashboard.Config){
		"no list":      func(c *dashboard.Config) { c.Allow = nil },
		"empty list":   func(c *dashboard.Config) { c.Allow = []netip.Prefix{} },
		"invalid list": func(c *dashboard.Config) { c.Allow = []netip.Prefix{{}} },
		"no client IP": func(c *dashboard.Config) { c.ClientIP = nil },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, httpBase, mod)
			seed(e)
			session := e.admin0()
			for _, rt := range e.Routes {
				method, path := requestOf(rt.Pattern)
				for _, m := range []string{method, "POST", "PUT"} {
					rec := e.Do(m, path, form, session, "Sec-Fetch-Site", "cross-site")
					if !is404(rec) {
						t.Errorf("%s %s (route %s): %d, want the 404 page", m, path, rt.Name, rec.Code)
					}
				}
			}
			if len(e.entries()) != 0 {
				t.Errorf("audit entries written while closed: %v", e.entries())
			}
		})
	}
}

// admin0 stores a session directly (the sign-in form is closed when the
// gate is): a valid session cookie must not open a closed dashboard.
func (e *env) admin0() string {
	e.T.Helper()
	u := e.addAdmin("ops@example.com")
	secret := strings.Repeat("A", 43)
	s := admin.Session{Hash: account.Hash(secret), UserID: u.ID, IP: adminIP, CreatedAt: start, LastSeen: start}
	if err := e.Store.CreateAdminSession(e.T.Context(), s); err != nil {
		e.T.Fatal(err)
	}
	return secret
}

// TestForwardedAddress: a peer outside the list gets 404 even when its
// X-Forwarded-For names an allowed address; from a trusted proxy the
// forwarded address decides, read from the right.
func TestForwardedAddress(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	for _, c := range []struct {
		peer, xff string
		open      bool
	}{
		{adminIP, "", true},
		{outsideIP, "", false},
		{outsideIP, adminIP, false},
		{outsideIP, adminIP + ", " + adminIP, false},
		{proxyIP, adminIP, true},
		{proxyIP, outsideIP, false},
		{proxyIP, adminIP + ", " + outsideIP, false}, // the client the proxy saw is outside
		{proxyIP, outsideIP + ", " + adminIP, true},  // what the outside client wrote is not believed
		{proxyIP, adminIP + ", 10.0.0.2", true},      // a second trusted proxy is skipped
		{proxyIP, "", false},                         // the proxy itself is not inside the list
		{proxyIP, "garbage", false},
		{adminIP, outsideIP, true}, // an allowed peer: its header changes nothing
	} {
		e.IP = c.peer
		for _, path := range []string{"/admin/signin", "/admin", "/admin/keys"} {
			rec := e.Do("GET", path, nil, "", "X-Forwarded-For", c.xff)
			if open := !is404(rec); open != c.open {
				t.Errorf("peer %s, X-Forwarded-For %q, %s: %d, open %v, want %v", c.peer, c.xff, path, rec.Code, open, c.open)
			}
		}
	}
}

// TestEveryRouteNeedsASession walks the route list Register handed out,
// so a new route cannot be forgotten: without a session every GET is sent
// to the sign-in form and every POST too, having done nothing. Only the
// sign-in form itself and the 404 catch-alls are open.
func TestEveryRouteNeedsASession(t *testing.T) {
	open := map[string]int{
		"GET /admin/signin":  http.StatusOK,
		"POST /admin/signin": http.StatusUnauthorized,
		"/admin/":            http.StatusNotFound,
		"/admin":             http.StatusNotFound,
	}
	for _, cookie := range []string{"", "not-a-session", strings.Repeat("B", 43)} {
		e := newEnv(t, httpBase, nil)
		seed(e)
		e.addAdmin("ops@example.com")
		if len(e.Routes) < 20 {
			t.Fatalf("only %d routes", len(e.Routes))
		}
		for _, rt := range e.Routes {
			method, path := requestOf(rt.Pattern)
			rec := e.Do(method, path, form, cookie)
			if want, ok := open[rt.Pattern]; ok {
				if rec.Code != want {
					t.Errorf("%s (%s) without a session: %d, want %d", rt.Pattern, rt.Name, rec.Code, want)
				}
				continue
			}
			loc := rec.Header().Get("Location")
			if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/signin") {
				t.Errorf("%s (%s) without a session (cookie %q): %d %q, want 303 to the sign-in form", rt.Pattern, rt.Name, cookie, rec.Code, loc)
			}
		}
		if k := e.Key(testPrefix); k.State != apikey.Active || k.Tier != apikey.Free || k.PerMinute != 0 {
			t.Errorf("the key changed without a session: %+v", k)
		}
		if n := len(e.entries()); n != 0 {
			t.Errorf("%d audit entries without a session", n)
		}
		if e.changed.Load() != 0 {
			t.Error("KeysChanged without a session")
		}
	}
}

// TestNextAfterSignIn: a page asked for without a session is where the
// sign-in leads back to; nothing outside the dashboard is.
func TestNextAfterSignIn(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	rec := e.get("/admin/keys?state=suspended", "")
	if loc := rec.Header().Get("Location"); loc != "/admin/signin?next=%2Fadmin%2Fkeys%3Fstate%3Dsuspended" {
		t.Fatalf("redirect to %q", loc)
	}
	e.addAdmin("ops@example.com")
	for next, want := range map[string]string{
		"/admin/keys?state=suspended": "/admin/keys?state=suspended",
		"https://evil.example/admin":  "/admin",
		"//evil.example/admin":        "/admin",
		"/administrator":              "/admin",
		"/developer":                  "/admin",
		"/admin/../developer":         "/admin",
		"/admin/keys\nSet-Cookie: x":  "/admin",
	} {
		e.Clock.Add(time.Minute) // every sign-in counts against the minute's limit
		rec := e.post("/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {password}, "next": {next}}, "")
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != want {
			t.Errorf("next %q: %d %q, want %q", next, rec.Code, loc, want)
		}
	}
}

// TestStoreFailureDenies: a store that fails while the session is checked
// denies every page and every form (503), and a sign-in fails closed.
func TestStoreFailureDenies(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	e.Faults.Fail("TouchAdminSession")
	for _, rt := range e.Routes {
		method, path := requestOf(rt.Pattern)
		if strings.HasPrefix(rt.Pattern, "/") || strings.HasSuffix(rt.Pattern, "/admin/signin") {
			continue
		}
		rec := e.Do(method, path, form, session)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s while the store fails: %d, want 503", rt.Pattern, rec.Code)
		}
		if body := rec.Body.String(); strings.Contains(body, `class="adminbar"`) || strings.Contains(body, "dev@example.com") {
			t.Errorf("%s while the store fails shows the dashboard", rt.Pattern)
		}
	}
	if len(e.entries()) != 1 { // the sign-in
		t.Errorf("audit entries while failing: %v", e.entries())
	}
	e.Faults.Fail("AdminUserByEmail")
	rec := e.post("/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {password}}, "")
	if rec.Code != http.StatusServiceUnavailable || areatest.CookieOf(rec, e.Cookie) != nil {
		t.Errorf("sign-in while the store fails: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	e.Faults.Fail("CreateAdminSession")
	rec = e.post("/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {password}}, "")
	if rec.Code != http.StatusServiceUnavailable || areatest.CookieOf(rec, e.Cookie) != nil {
		t.Errorf("sign-in while sessions cannot be stored: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
}

// TestPortalSessionIsNotAdmin: the developer portal's session cookie is
// not an admin session, whatever its value; the dashboard reads only its
// own cookie.
func TestPortalSessionIsNotAdmin(t *testing.T) {
	for _, base := range []string{httpBase, httpsBase} {
		e := newEnv(t, base, nil)
		session := e.admin()
		for _, name := range []string{"session", "__Host-session"} {
			r := e.Do("GET", "/admin", nil, "", "Cookie", name+"="+session)
			if r.Code != http.StatusSeeOther {
				t.Errorf("%s: the portal's cookie %s opened the dashboard: %d", base, name, r.Code)
			}
		}
		if r := e.get("/admin", session); r.Code != http.StatusOK {
			t.Errorf("%s: the admin session: %d", base, r.Code)
		}
	}
}

// TestSessionBoundToAllowList: a session is checked against the list on
// every request: the same cookie from outside is a 404.
func TestSessionBoundToAllowList(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	e.IP = outsideIP
	if rec := e.get("/admin", session); !is404(rec) {
		t.Errorf("a session from outside the list: %d", rec.Code)
	}
	e.IP = "192.0.2.77" // another address inside
	if rec := e.get("/admin", session); rec.Code != http.StatusOK {
		t.Errorf("a session from another allowed address: %d", rec.Code)
	}
}

// TestCrossOriginPostRefused: a form sent from another site does nothing.
func TestCrossOriginPostRefused(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	before := len(e.entries())
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}} {
		rec := e.Do("POST", "/admin/keys/"+testPrefix+"/suspend", url.Values{"reason": {"x"}}, session, h...)
		if rec.Code != http.StatusForbidden {
			t.Errorf("cross-origin POST (%v): %d", h, rec.Code)
		}
	}
	if e.Key(testPrefix).State != apikey.Active || len(e.entries()) != before {
		t.Error("a cross-origin POST changed something")
	}
	rec := e.Do("POST", "/admin/keys/"+testPrefix+"/suspend", url.Values{"reason": {"x"}}, session, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther || e.Key(testPrefix).State != apikey.Suspended {
		t.Errorf("a same-origin POST: %d", rec.Code)
	}
}
