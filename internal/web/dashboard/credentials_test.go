package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
)

// plenty are limits of sign-ins no test here reaches.
var plenty = apikey.Limits{PerMinute: 100, PerDay: 1000}

// withTOTP gives the admin of email a second factor and recovery codes
// (the cheap credentials' hashes).
func (e *env) withTOTP(email string, codes ...string) admin.User {
	e.T.Helper()
	u, err := e.Store.AdminUserByEmail(e.T.Context(), email)
	e.ok(err)
	u.TOTPSecret = "JBSWY3DPEHPK3PXP"
	for _, c := range codes {
		u.RecoveryHashes = append(u.RecoveryHashes, "h:"+c)
	}
	u, err = e.Store.UpdateAdminUser(e.T.Context(), u)
	e.ok(err)
	return u
}

// TestTOTPCodeWorksOnce: a code signs in once; the same code again, or a
// code of an earlier step still inside the window, is refused.
func TestTOTPCodeWorksOnce(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.addAdmin("ops@example.com")
	e.withTOTP("ops@example.com")
	e.signIn("ops@example.com", goodCode)
	for _, code := range []string{goodCode, earlierCode} {
		rec := e.post("/admin/signin", signInForm("ops@example.com", password, code), "")
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "The email, password or code is not right.") {
			t.Errorf("code %s again in its window = %d, want 401", code, rec.Code)
		}
	}
	e.Clock.Add(admin.TOTPPeriod)
	e.signIn("ops@example.com", goodCode) // the next step's code
}

// TestRecoveryCodeSpentOnce: one recovery code sent in several sign-ins
// at once signs in exactly one of them.
func TestRecoveryCodeSpentOnce(t *testing.T) {
	slow := func(c *dashboard.Config) {
		check := c.Credentials.CheckPassword
		c.Credentials.CheckPassword = func(hash, pw string) bool {
			time.Sleep(20 * time.Millisecond) // the checks overlap, as argon2id's do
			return check(hash, pw)
		}
		c.SignInsPerAccount = plenty
		c.MaxPasswordChecks = 8
	}
	e := newEnv(t, httpBase, slow)
	e.addAdmin("ops@example.com")
	e.withTOTP("ops@example.com", "recov-00001", "recov-00002")
	const n = 8
	codes := make([]int, n)
	storetest.AtOnce(n, func(i int) {
		codes[i] = e.post("/admin/signin", signInForm("ops@example.com", password, "recov-00001"), "").Code
	})
	won := 0
	for _, c := range codes {
		if c == http.StatusSeeOther {
			won++
		} else if c != http.StatusUnauthorized {
			t.Errorf("a concurrent sign-in = %d", c)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d sign-ins with one recovery code succeeded, want 1", won, n)
	}
	if u, _ := e.Store.AdminUserByEmail(t.Context(), "ops@example.com"); len(u.RecoveryHashes) != 1 || u.RecoveryHashes[0] != "h:recov-00002" {
		t.Errorf("the codes left = %v, want the other one", u.RecoveryHashes)
	}
}

// TestFailedSignInsCountedFirst: sign-ins sent at once are counted before
// their passwords are checked, so no more are checked than the limit
// allows.
func TestFailedSignInsCountedFirst(t *testing.T) {
	var checks atomic.Int64
	e := newEnv(t, httpBase, func(c *dashboard.Config) {
		check := c.Credentials.CheckPassword
		c.Credentials.CheckPassword = func(hash, pw string) bool {
			checks.Add(1)
			time.Sleep(20 * time.Millisecond)
			return check(hash, pw)
		}
		c.MaxPasswordChecks = 10
	})
	e.addAdmin("ops@example.com")
	const n = 10
	codes := make([]int, n)
	storetest.AtOnce(n, func(i int) {
		codes[i] = e.post("/admin/signin", signInForm("ops@example.com", fmt.Sprint("guess ", i), ""), "").Code
	})
	limited := 0
	for _, c := range codes {
		if c == http.StatusTooManyRequests {
			limited++
		}
	}
	limit := int(dashboard.DefaultSignInsPerAccount.PerMinute)
	if got := checks.Load(); got > int64(limit) || limited != n-limit {
		t.Errorf("%d passwords checked and %d refused of %d sent at once, want at most %d checked", got, limited, n, limit)
	}
}

// TestPasswordChecksBounded: no more passwords are checked at once than
// MaxPasswordChecks (each argon2id check holds 64 MiB); a sign-in that
// cannot get a turn within PasswordWait is told to try again (503), its
// password unchecked.
func TestPasswordChecksBounded(t *testing.T) {
	var now, peak atomic.Int64
	release := make(chan struct{})
	e := newEnv(t, httpBase, func(c *dashboard.Config) {
		c.MaxPasswordChecks, c.PasswordWait = 2, 50*time.Millisecond
		c.SignInsPerIP, c.SignInsPerAccount = plenty, plenty
		check := func() {
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-release
			now.Add(-1)
		}
		c.Credentials.CheckPassword = func(string, string) bool { check(); return false }
		c.Credentials.DummyCheckPassword = func(string) { check() }
	})
	e.addAdmin("ops@example.com")
	const n = 6
	codes := make(chan int, n)
	for i := range n {
		go func() {
			email := "ops@example.com"
			if i%2 == 1 {
				email = fmt.Sprintf("nobody%d@example.com", i)
			}
			codes <- e.post("/admin/signin", signInForm(email, "guess", ""), "").Code
		}()
	}
	busy := 0
	for range n - 2 { // all but the two checked at once wait, then give up
		if c := <-codes; c != http.StatusServiceUnavailable {
			t.Errorf("a sign-in without a turn = %d, want 503", c)
		}
		busy++
	}
	close(release)
	for range 2 {
		if c := <-codes; c != http.StatusUnauthorized {
			t.Errorf("a checked sign-in = %d, want 401", c)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d passwords checked at once, want at most 2", p)
	}
}

// TestAdminFormsRefuseWhatIsNotText: a field that is not UTF-8 is refused
// with its form's error, and nothing is made.
func TestAdminFormsRefuseWhatIsNotText(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	keys := len(e.Keys())
	for _, form := range []url.Values{
		{"name": {"K\xff"}, "tier": {"free"}, "reason": {"test"}},
		{"name": {"K"}, "email": {"d\xffv@example.com"}, "tier": {"free"}, "reason": {"test"}},
		{"name": {"K"}, "email": {"dev@[127.0.0.1]"}, "tier": {"free"}, "reason": {"test"}},
	} {
		rec := e.post("/admin/keys", form, session)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Give a name of at most") {
			t.Errorf("POST /admin/keys %q = %d", form.Encode(), rec.Code)
		}
	}
	if len(e.Keys()) != keys {
		t.Error("a refused form made a key")
	}
	e.Clock.Add(time.Minute)
	rec := e.post("/admin/signin", signInForm("ops\xff@example.com", password, ""), "")
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "The email, password or code is not right.") {
		t.Errorf("a sign-in with an address that is not UTF-8 = %d", rec.Code)
	}
}
