package admin_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/web"
	webadmin "github.com/fragrance-data/fragrance/internal/web/admin"
)

const (
	httpBase  = "http://fragrance.test"
	httpsBase = "https://fragrance.test"
	// adminIP is inside the allow-list, outsideIP is not; proxyIP is a
	// trusted proxy.
	adminIP   = "192.0.2.10"
	outsideIP = "203.0.113.5"
	proxyIP   = "10.0.0.1"
	// password is every test admin's password.
	password = "correct horse battery staple"
	// goodCode is the TOTP code the cheap credentials take.
	goodCode = "246810"
)

// start is the test clock's first moment.
var start = time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC)

var (
	allow   = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	trusted = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
)

// route is one route the dashboard's Register handed out.
type route struct{ pattern, name string }

// env is the dashboard over fakes, behind a ServeMux as the server mounts
// it (the ground's routes, the dashboard's, the 404 page for the rest).
type env struct {
	t       *testing.T
	clock   *testclock.Clock
	store   *fakeStore
	changed atomic.Int64 // KeysChanged calls
	dummies atomic.Int64 // DummyCheckPassword calls
	routes  []route
	h       http.Handler
	cookie  string // the session cookie's name
	ip      string // the peer address of requests
}

func newEnv(t *testing.T, base string, mod func(*webadmin.Config)) *env {
	t.Helper()
	clock := testclock.New(start)
	e := &env{t: t, clock: clock, store: newFakeStore(clock.Now), cookie: "admin", ip: adminIP}
	if strings.HasPrefix(base, "https://") {
		e.cookie = "__Host-admin"
	}
	ground, err := web.New(web.Config{BaseURL: base, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	cfg := webadmin.Config{
		Web: ground, Allow: allow,
		ClientIP: func(r *http.Request) netip.Addr { return access.ClientIP(r, trusted) },
		Admins:   e.store, Accounts: e.store, Keys: e.store, Usage: e.store,
		Credentials: cheapCredentials(&e.dummies),
		KeysChanged: func() { e.changed.Add(1) },
		Perfume: func(id int64) (string, string, bool) {
			return fmt.Sprintf("Perfume %d", id), fmt.Sprintf("/perfumes/p-%d", id), id != 404
		},
		Now: clock.Now,
	}
	if mod != nil {
		mod(&cfg)
	}
	d, err := webadmin.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ground.Register(func(pattern, _ string, h http.Handler) { mux.Handle(pattern, h) })
	d.Register(func(pattern, name string, h http.Handler) {
		mux.Handle(pattern, h)
		e.routes = append(e.routes, route{pattern, name})
	})
	mux.Handle("/", ground.NotFound())
	e.h = mux
	return e
}

// cheapCredentials stand for package admin's: a password hash is
// "plain:" and the password, the one TOTP code is goodCode, recovery
// codes hash to "h:" and the code.
func cheapCredentials(dummies *atomic.Int64) webadmin.Credentials {
	return webadmin.Credentials{
		CheckPassword:      func(hash, pw string) bool { return hash == "plain:"+pw },
		DummyCheckPassword: func(string) { dummies.Add(1) },
		NewTOTPSecret:      func() string { return "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" },
		CheckTOTP:          func(secret, code string, _ time.Time) bool { return secret != "" && code == goodCode },
		TOTPURI:            func(issuer, email, secret string) string { return "otpauth://totp/" + email + "?secret=" + secret },
		QRCodeSVG: func(text, title string) (string, error) {
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>` + html.EscapeString(title) + `</title></svg>`, nil
		},
		NewRecoveryCodes: func(n int) (codes, hashes []string) {
			for i := range n {
				codes = append(codes, fmt.Sprintf("recov-%05d", i))
				hashes = append(hashes, fmt.Sprintf("h:recov-%05d", i))
			}
			return codes, hashes
		},
		UseRecoveryCode: func(hashes []string, code string) ([]string, bool) {
			i := slices.Index(hashes, "h:"+code)
			if i < 0 {
				return hashes, false
			}
			return slices.Delete(slices.Clone(hashes), i, i+1), true
		},
	}
}

// addAdmin stores an admin with the test password.
func (e *env) addAdmin(email string) admin.User {
	e.t.Helper()
	u, err := e.store.CreateAdminUser(e.t.Context(), admin.User{Email: email, PasswordHash: "plain:" + password})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// req sends a request from the env's peer address, with form as its body
// when not nil, the session cookie when session is not empty, and header
// pairs; every HTML answer is checked as a page of the ground.
func (e *env) req(method, target string, form url.Values, session string, header ...string) *httptest.ResponseRecorder {
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
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && method != http.MethodHead && rec.Code/100 != 3 {
		checkPage(e.t, method+" "+target, rec)
	}
	return rec
}

// get and post are req without headers.
func (e *env) get(target, session string) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.req("GET", target, nil, session)
}

func (e *env) post(target string, form url.Values, session string) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.req("POST", target, form, session)
}

// signIn signs email in with the test password (and code, when given)
// and returns the session cookie's value.
func (e *env) signIn(email, code string) string {
	e.t.Helper()
	rec := e.post("/admin/signin", url.Values{"email": {email}, "password": {password}, "code": {code}}, "")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin" {
		e.t.Fatalf("sign in %s: %d %q\n%s", email, rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	c := cookieOf(rec, e.cookie)
	if c == nil || c.MaxAge <= 0 {
		e.t.Fatalf("sign in %s: no session cookie in %v", email, rec.Result().Cookies())
	}
	return c.Value
}

// admin signs in a fresh admin and returns the session.
func (e *env) admin() string {
	e.t.Helper()
	e.addAdmin("ops@example.com")
	return e.signIn("ops@example.com", "")
}

func cookieOf(rec *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range rec.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

var (
	cspNonceRE = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)
	scriptRE   = regexp.MustCompile(`<script[^>]*>`)
	controlRE  = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idRE       = regexp.MustCompile(`\sid="([^"]+)"`)
	typeRE     = regexp.MustCompile(`\stype="([^"]+)"`)
	secretRE   = regexp.MustCompile(`fds_[0-9A-Za-z]{49}`)
)

// checkPage holds every HTML answer to the ground's rules: a CSP with a
// nonce on every script and no inline style, one h1, unique ids, a label
// for every form control; and to the dashboard's: no cache keeps it.
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
	seen := map[string]bool{}
	for _, id := range idRE.FindAllStringSubmatch(body, -1) {
		if seen[id[1]] {
			t.Errorf("%s: id %q twice", what, id[1])
		}
		seen[id[1]] = true
	}
	for _, loc := range controlRE.FindAllStringIndex(body, -1) {
		tag := body[loc[0]:loc[1]]
		if tm := typeRE.FindStringSubmatch(tag); tm != nil && tm[1] == "hidden" {
			continue
		}
		if id := idRE.FindStringSubmatch(tag); id != nil && strings.Contains(body, `for="`+id[1]+`"`) {
			continue
		}
		if open := strings.LastIndex(body[:loc[0]], "<label"); open >= 0 && !strings.Contains(body[open:loc[0]], "</label>") {
			continue // a control inside its label
		}
		t.Errorf("%s: a form control without a label: %s", what, tag)
	}
	if strings.Contains(body, `class="adminbar"`) && rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("%s: a dashboard page a cache may keep (Cache-Control %q)", what, rec.Header().Get("Cache-Control"))
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

// is404 reports whether rec is the site's plain 404 page.
func is404(rec *httptest.ResponseRecorder) bool {
	return rec.Code == http.StatusNotFound && strings.Contains(rec.Body.String(), "Page not found")
}

// accountOf is a live account.
func accountOf(id int64, email string) account.Account {
	return account.Account{ID: id, Email: email, CreatedAt: start.Add(-time.Duration(id) * time.Hour)}
}

// tierRequestOf is a pending request.
func tierRequestOf(id, accountID int64, prefix string, t apikey.Tier) account.TierRequest {
	return account.TierRequest{ID: id, AccountID: accountID, KeyPrefix: prefix, Tier: t, UseCase: "a shop", Volume: "10k a day",
		State: account.Pending, CreatedAt: start.Add(-time.Hour)}
}

// sessionOf is an admin session of the cookie value secret.
func sessionOf(userID int64, secret string, at time.Time) admin.Session {
	return admin.Session{Hash: account.Hash(secret), UserID: userID, IP: adminIP, CreatedAt: at, LastSeen: at}
}
