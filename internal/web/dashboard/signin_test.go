package dashboard_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
)

func signInForm(email, pw, code string) url.Values {
	return url.Values{"email": {email}, "password": {pw}, "code": {code}}
}

// TestSignInSameAnswer: an unknown address, a wrong password, a disabled
// admin and a malformed address get one answer, and the unknown ones
// cost a password check too.
func TestSignInSameAnswer(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.addAdmin("ops@example.com")
	off := e.addAdmin("off@example.com")
	off.Disabled = true
	if _, err := e.Store.UpdateAdminUser(t.Context(), off); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		email, pw string
		dummy     bool
	}{
		{"nobody@example.com", password, true},
		{"ops@example.com", "wrong", false},
		{"off@example.com", password, false},
		{"not an address", password, true},
		{"ops@example.com", "", true},
	} {
		e.Clock.Add(time.Minute) // past the minute's limit of failures
		dummies := e.dummies.Load()
		rec := e.post("/admin/signin", signInForm(c.email, c.pw, ""), "")
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "The email, password or code is not right.") {
			t.Errorf("%s / %q: %d", c.email, c.pw, rec.Code)
		}
		if areatest.CookieOf(rec, e.Cookie) != nil {
			t.Errorf("%s: a cookie was set", c.email)
		}
		if got := e.dummies.Load() != dummies; got != c.dummy {
			t.Errorf("%s / %q: dummy check %v, want %v", c.email, c.pw, got, c.dummy)
		}
		if strings.Contains(rec.Body.String(), c.pw) && c.pw != "" {
			t.Errorf("%s: the password is repeated", c.email)
		}
	}
}

// TestSignInLimits: failed sign-ins are limited per account (the address
// typed, known or not) and per client IP; past a limit even the right
// password is refused, until the window has room again.
func TestSignInLimits(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.addAdmin("ops@example.com")
	for i := range 5 {
		if rec := e.post("/admin/signin", signInForm("ops@example.com", "wrong", ""), ""); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, rec.Code)
		}
	}
	rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), "")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || areatest.CookieOf(rec, e.Cookie) != nil {
		t.Fatalf("the right password past the limit: %d %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	e.IP = "192.0.2.11" // another address: the account's limit holds
	if rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the account's limit from another address: %d", rec.Code)
	}
	e.Clock.Add(time.Minute)
	e.signIn("ops@example.com", "")

	// Per IP: failures for many addresses from one client.
	e.IP = "192.0.2.12"
	for i := range 10 {
		e.post("/admin/signin", signInForm("guess"+string(rune('a'+i))+"@example.com", "x", ""), "")
	}
	if rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("past the limit of the address: %d", rec.Code)
	}
}

// TestSessionCookie: the admin cookie is HttpOnly and SameSite=Strict;
// over https __Host-admin and Secure, else "admin" sent only to /admin.
func TestSessionCookie(t *testing.T) {
	for _, c := range []struct {
		base, name, path string
		secure           bool
	}{
		{httpBase, "admin", "/admin", false},
		{httpsBase, "__Host-admin", "/", true},
	} {
		e := newEnv(t, c.base, nil)
		e.addAdmin("ops@example.com")
		rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), "")
		k := areatest.CookieOf(rec, c.name)
		if k == nil || !k.HttpOnly || k.SameSite != http.SameSiteStrictMode || k.Path != c.path || k.Secure != c.secure ||
			k.MaxAge != int(admin.SessionMax/time.Second) {
			t.Errorf("%s: cookie %+v", c.base, k)
		}
	}
}

// TestSecondFactor: an admin with a second factor signs in only with a
// right code, or a recovery code, which works once.
func TestSecondFactor(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	u := e.addAdmin("ops@example.com")
	u.TOTPSecret, u.RecoveryHashes = "JBSWY3DPEHPK3PXP", []string{"h:recov-00001", "h:recov-00002"}
	if _, err := e.Store.UpdateAdminUser(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"", "000000", "recov-00009"} {
		e.Clock.Add(time.Minute)
		if rec := e.post("/admin/signin", signInForm("ops@example.com", password, code), ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("code %q: %d", code, rec.Code)
		}
	}
	e.signIn("ops@example.com", "246 810")
	e.signIn("ops@example.com", "recov-00001")
	if got, _ := e.Store.AdminUserByID(t.Context(), u.ID); len(got.RecoveryHashes) != 1 {
		t.Errorf("the recovery code is not spent: %v", got.RecoveryHashes)
	}
	if rec := e.post("/admin/signin", signInForm("ops@example.com", password, "recov-00001"), ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("a spent recovery code: %d", rec.Code)
	}
	es := e.entries()
	if last := es[len(es)-1]; last.Action != "signin" || !strings.Contains(last.Detail, "recovery code (1 left)") {
		t.Errorf("the sign-in with a recovery code is audited as %+v", last)
	}
}

// TestSessionIdle: a session unused for admin.SessionIdle has ended; one
// in use lives on, up to admin.SessionMax.
func TestSessionIdle(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	for range 3 {
		e.Clock.Add(admin.SessionIdle - time.Minute)
		if rec := e.get("/admin/audit", session); rec.Code != http.StatusOK {
			t.Fatalf("a session in use: %d", rec.Code)
		}
	}
	e.Clock.Add(admin.SessionIdle)
	rec := e.get("/admin/audit", session)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("an idle session: %d", rec.Code)
	}
	if c := areatest.CookieOf(rec, e.Cookie); c == nil || c.MaxAge >= 0 {
		t.Error("the browser is not told to forget the cookie of an ended session")
	}
}

// TestSignOut: the session ends, the cookie goes.
func TestSignOut(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	rec := e.post("/admin/signout", url.Values{}, session)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/signin" {
		t.Fatalf("sign out: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if c := areatest.CookieOf(rec, e.Cookie); c == nil || c.MaxAge >= 0 {
		t.Error("the cookie stays")
	}
	if rec := e.get("/admin", session); rec.Code != http.StatusSeeOther {
		t.Errorf("after sign-out: %d", rec.Code)
	}
	// The sign-in form sends an admin signed in already to the dashboard.
	session = e.signIn("ops@example.com", "")
	if rec := e.get("/admin/signin", session); rec.Code != http.StatusSeeOther {
		t.Errorf("the sign-in form when signed in: %d", rec.Code)
	}
}

// TestTOTPEnrolment: the page shows the QR code (an SVG image) and the
// secret; a wrong code changes nothing; the right one enrols the secret
// and shows the recovery codes once; from then on sign-in needs a code.
func TestTOTPEnrolment(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	rec := e.get("/admin/totp", session)
	body := rec.Body.String()
	areatest.MustContain(t, "enrolment", body, `src="data:image/svg&#43;xml;base64,`, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", `name="secret"`, `for="totp-code">Code</label>`)
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Error("the secret's page may be cached")
	}
	secret := url.Values{"secret": {"JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"}}
	bad := url.Values{"secret": secret["secret"], "code": {"111111"}}
	if rec := e.post("/admin/totp", bad, session); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("a wrong code: %d", rec.Code)
	}
	if rec := e.post("/admin/totp", url.Values{"secret": {"not base32!"}, "code": {goodCode}}, session); rec.Code != http.StatusBadRequest {
		t.Errorf("a broken secret: %d", rec.Code)
	}
	if u, _ := e.Store.AdminUserByEmail(t.Context(), "ops@example.com"); u.TOTPSecret != "" {
		t.Fatal("enrolled without the right code")
	}
	good := url.Values{"secret": secret["secret"], "code": {goodCode}}
	rec = e.post("/admin/totp", good, session)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "recov-00009") || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("enrol: %d", rec.Code)
	}
	u, _ := e.Store.AdminUserByEmail(t.Context(), "ops@example.com")
	if u.TOTPSecret != secret.Get("secret") || len(u.RecoveryHashes) != 10 {
		t.Errorf("enrolled as %+v", u)
	}
	if es := e.entries(); es[len(es)-1].Action != "user.totp" {
		t.Errorf("the enrolment is not audited: %+v", es[len(es)-1])
	}
	if rec := e.post("/admin/totp", good, session); rec.Code != http.StatusConflict {
		t.Errorf("enrolling again: %d", rec.Code)
	}
	if body := e.get("/admin/totp", session).Body.String(); strings.Contains(body, "recov-") || strings.Contains(body, "JBSWY3DP") {
		t.Error("the codes or the secret are shown again")
	}
	e.Clock.Add(time.Minute)
	if rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("a sign-in without the code after enrolling: %d", rec.Code)
	}
	e.signIn("ops@example.com", goodCode)
}

// TestSignInLimitPerIPv6Prefix: the per-IP sign-in limit counts an IPv6
// client's prefix (Config.LimitAddress, the Guard's /64), so a client
// cannot spread its guesses over the addresses of its /64.
func TestSignInLimitPerIPv6Prefix(t *testing.T) {
	e := newEnv(t, httpBase, func(c *dashboard.Config) {
		c.Allow = append(c.Allow, netip.MustParsePrefix("2001:db8::/32"))
		c.LimitAddress = func(a netip.Addr) string { return access.AddressKey(a.String(), access.DefaultIPv6Prefix) }
	})
	e.addAdmin("ops@example.com")
	for i := range 10 {
		e.IP = "[2001:db8:0:5::" + strconv.Itoa(i+1) + "]" // the peer as RemoteAddr writes it
		e.post("/admin/signin", signInForm("guess"+strconv.Itoa(i)+"@example.com", "x", ""), "")
	}
	e.IP = "[2001:db8:0:5:ffff::1]"
	if rec := e.post("/admin/signin", signInForm("ops@example.com", password, ""), ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("an eleventh address of the same /64: %d, want 429", rec.Code)
	}
	e.IP = "[2001:db8:0:6::1]"
	e.signIn("ops@example.com", "")
}
