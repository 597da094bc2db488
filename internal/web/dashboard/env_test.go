package dashboard_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
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
	// goodCode is the TOTP code the cheap credentials take, of the step
	// now; earlierCode they take as the code of the step before.
	goodCode    = "246810"
	earlierCode = "135790"
)

// start is the test clock's first moment.
var start = time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC)

var (
	allow   = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	trusted = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
)

// env is the dashboard in the areas' test environment, the store given to
// it as every store it needs.
type env struct {
	*areatest.Env
	changed atomic.Int64 // KeysChanged calls
	dummies atomic.Int64 // DummyCheckPassword calls
}

func newEnv(t *testing.T, base string, mod func(*dashboard.Config)) *env {
	t.Helper()
	e := &env{Env: areatest.New(t, base, start, "admin", adminIP)}
	cfg := dashboard.Config{
		Web: e.Web, Allow: allow,
		ClientIP: func(r *http.Request) netip.Addr { return access.ClientIP(r, trusted) },
		Admins:   e.Faults, Accounts: e.Faults, Keys: e.Faults, Usage: e.Faults,
		Credentials: cheapCredentials(&e.dummies),
		KeysChanged: func() { e.changed.Add(1) },
		Perfume: func(id int64) (string, string, bool) {
			return fmt.Sprintf("Perfume %d", id), fmt.Sprintf("/perfumes/p-%d", id), id != 404
		},
		Now: e.Clock.Now,
	}
	if mod != nil {
		mod(&cfg)
	}
	d, err := dashboard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Mount(d)
	return e
}

// cheapCredentials stand for package admin's: a password hash is
// "plain:" and the password, the TOTP codes are goodCode (now's step) and
// earlierCode (the step before), recovery codes hash to "h:" and the
// code.
func cheapCredentials(dummies *atomic.Int64) dashboard.Credentials {
	return dashboard.Credentials{
		CheckPassword:      func(hash, pw string) bool { return hash == "plain:"+pw },
		DummyCheckPassword: func(string) { dummies.Add(1) },
		NewTOTPSecret:      func() string { return "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" },
		MatchTOTP: func(secret, code string, now time.Time) (int64, bool) {
			step := admin.TOTPStep(now)
			switch {
			case secret == "":
				return 0, false
			case code == earlierCode:
				return step - 1, true
			}
			return step, code == goodCode
		},
		TOTPURI: func(issuer, email, secret string) string { return "otpauth://totp/" + email + "?secret=" + secret },
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
		MatchRecoveryCode: func(hashes []string, code string) (string, bool) {
			if !slices.Contains(hashes, "h:"+code) {
				return "", false
			}
			return "h:" + code, true
		},
	}
}

// get and post are Do without headers.
func (e *env) get(target, session string) *httptest.ResponseRecorder {
	e.T.Helper()
	return e.Do("GET", target, nil, session)
}

func (e *env) post(target string, form url.Values, session string) *httptest.ResponseRecorder {
	e.T.Helper()
	return e.Do("POST", target, form, session)
}

// signIn signs email in with the test password (and code, when given)
// and returns the session cookie's value.
func (e *env) signIn(email, code string) string {
	e.T.Helper()
	rec := e.post("/admin/signin", url.Values{"email": {email}, "password": {password}, "code": {code}}, "")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin" {
		e.T.Fatalf("sign in %s: %d %q\n%s", email, rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	c := areatest.CookieOf(rec, e.Cookie)
	if c == nil || c.MaxAge <= 0 {
		e.T.Fatalf("sign in %s: no session cookie in %v", email, rec.Result().Cookies())
	}
	return c.Value
}

// admin signs in a fresh admin and returns the session.
func (e *env) admin() string {
	e.T.Helper()
	e.addAdmin("ops@example.com")
	return e.signIn("ops@example.com", "")
}

// is404 reports whether rec is the site's plain 404 page.
func is404(rec *httptest.ResponseRecorder) bool {
	return rec.Code == http.StatusNotFound && strings.Contains(rec.Body.String(), "Page not found")
}

// ok fails the test on err, of what the test stores or reads itself.
func (e *env) ok(err error) {
	e.T.Helper()
	if err != nil {
		e.T.Fatal(err)
	}
}

// addAdmin stores an admin with the test password.
func (e *env) addAdmin(email string) admin.User {
	e.T.Helper()
	v, err := e.Store.CreateAdminUser(context.Background(), admin.User{Email: email, PasswordHash: "plain:" + password})
	e.ok(err)
	return v
}

// addAccount makes the account of email, as its first sign-in link does:
// account n made n hours before start, so the later an account is
// numbered, the older it is.
func (e *env) addAccount(email string) account.Account {
	e.T.Helper()
	ctx := context.Background()
	as, err := e.Store.ListAccounts(ctx)
	e.ok(err)
	made := start.Add(-time.Duration(len(as)+1) * time.Hour)
	_, hash := account.NewSecret()
	e.ok(e.Store.CreateSignInLink(ctx, hash, email, made.Add(account.LinkTTL)))
	a, err := e.Store.UseSignInLink(ctx, hash, made)
	e.ok(err)
	return a
}

// addKey stores k (its hash made up from its prefix when empty).
func (e *env) addKey(k apikey.Key) apikey.Key {
	e.T.Helper()
	if k.Hash == "" {
		k.Hash = "hash of " + k.Prefix
	}
	v, err := e.Store.CreateKey(context.Background(), k)
	e.ok(err)
	return v
}

// addRequest stores a pending request of the account for a key.
func (e *env) addRequest(accountID int64, prefix string, t apikey.Tier) account.TierRequest {
	e.T.Helper()
	r, err := e.Store.CreateTierRequest(context.Background(), account.TierRequest{AccountID: accountID, KeyPrefix: prefix, Tier: t,
		UseCase: "a shop", Volume: "10k a day", CreatedAt: start.Add(-time.Hour)})
	e.ok(err)
	return r
}

// entries is the audit log, oldest first.
func (e *env) entries() []admin.AuditEntry {
	e.T.Helper()
	es, err := e.Store.Audit(context.Background(), 0, 1<<20, "")
	e.ok(err)
	slices.Reverse(es)
	return es
}

// usageRows writes counts as rows of table (usage_hourly or usage_daily,
// whose period column is col), beside the store: each there only.
func (e *env) usageRows(table, col string, counts []usage.Count) {
	e.T.Helper()
	for _, c := range counts {
		e.Exec(`INSERT INTO `+table+` (key_prefix, endpoint, status_class, `+col+`, count) VALUES (?, ?, ?, ?, ?)`,
			c.KeyPrefix, c.Endpoint, c.StatusClass, c.Start.Unix(), c.Count)
	}
}

// signals stores abuse signals, numbered by the store in their order.
func (e *env) signals(ss []usage.Signal) {
	e.T.Helper()
	if err := e.Store.RecordSignals(context.Background(), ss); err != nil {
		e.T.Fatal(err)
	}
}
