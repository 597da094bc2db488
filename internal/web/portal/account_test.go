package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestDeleteAccount: deleting asks for the address, then revokes the
// account's keys (the Guard told), erases its address, ends its sessions
// and clears the cookie; the usage counts stay.
func TestDeleteAccount(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	other := e.signIn("dev@example.com") // a second browser
	_, prefix := e.createKey(s, url.Values{"name": {"K"}, "kind": {"server"}})
	e.Record(usage.Batch{Hourly: []usage.Count{{KeyPrefix: prefix, Endpoint: "perfumes.list", StatusClass: "2xx", Start: start.Truncate(24 * time.Hour), Count: 5}}})

	page := e.Do("GET", "/developer/account", nil, s)
	areatest.MustContain(t, "the account page", page.Body.String(), "Delete account</button>", `<label for="confirm">Type your email address to confirm</label>`, "Sign out everywhere</button>")
	for _, wrong := range []string{"", "someone@example.com", "not an address"} {
		rec := e.Do("POST", "/developer/account/delete", url.Values{"confirm": {wrong}}, s)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Type your email address, dev@example.com, to confirm") {
			t.Errorf("confirm %q = %d", wrong, rec.Code)
		}
	}
	if e.Key(prefix).State != apikey.Active {
		t.Fatal("a wrong confirmation deleted")
	}
	changed := e.changed.Load()
	rec := e.Do("POST", "/developer/account/delete", url.Values{"confirm": {" dev@EXAMPLE.com "}}, s)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Your account is deleted") {
		t.Fatalf("delete = %d\n%s", rec.Code, rec.Body)
	}
	if c := areatest.CookieOf(rec, e.Cookie); c == nil || c.MaxAge >= 0 {
		t.Errorf("the cookie is not cleared: %v", rec.Result().Cookies())
	}
	k := e.Key(prefix)
	if k.State != apikey.Revoked || k.Email != "" || e.changed.Load() != changed+1 {
		t.Errorf("after delete: key %+v, KeysChanged %d", k, e.changed.Load()-changed)
	}
	if a := e.Account(1); !a.Deleted() || a.Email != "" {
		t.Errorf("account after delete %+v", a)
	}
	if rep, _ := meter.BuildReport(t.Context(), e.Store, prefix, e.Clock.Now(), 1, nil); rep.Total != 5 {
		t.Errorf("usage after delete: %d", rep.Total)
	}
	for _, session := range []string{s, other} {
		if rec := e.Do("GET", "/developer/keys", nil, session); rec.Code != http.StatusUnauthorized {
			t.Errorf("a session of the deleted account = %d", rec.Code)
		}
	}
	// The address can make a new account.
	fresh := e.signIn("dev@example.com")
	areatest.MustContain(t, "the new account's keys", e.Do("GET", "/developer/keys", nil, fresh).Body.String(), "You have no key yet")
}

// TestSignOut: Sign out ends this browser's session only; Sign out
// everywhere ends every one; a session ends after a week unused.
func TestSignOut(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	a := e.signIn("dev@example.com")
	b := e.signIn("dev@example.com")
	rec := e.Do("POST", "/developer/signout", url.Values{}, a)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/developer" {
		t.Fatalf("sign out = %d", rec.Code)
	}
	if c := areatest.CookieOf(rec, e.Cookie); c == nil || c.MaxAge >= 0 {
		t.Errorf("sign out leaves the cookie: %v", rec.Result().Cookies())
	}
	if rec := e.Do("GET", "/developer/keys", nil, a); rec.Code != http.StatusUnauthorized {
		t.Errorf("the signed-out session = %d", rec.Code)
	}
	if rec := e.Do("GET", "/developer/keys", nil, b); rec.Code != http.StatusOK {
		t.Errorf("the other browser after a sign-out = %d", rec.Code)
	}
	c := e.signIn("dev@example.com")
	if rec := e.Do("POST", "/developer/signout/everywhere", url.Values{}, c); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign out everywhere = %d", rec.Code)
	}
	for _, s := range []string{b, c} {
		if rec := e.Do("GET", "/developer/keys", nil, s); rec.Code != http.StatusUnauthorized {
			t.Errorf("a session after sign out everywhere = %d", rec.Code)
		}
	}
	// Signing out without a session just goes home.
	if rec := e.Do("POST", "/developer/signout", url.Values{}, ""); rec.Code != http.StatusSeeOther {
		t.Errorf("sign out without a session = %d", rec.Code)
	}

	// Idle for a week: the session has ended, and the browser is told to
	// forget its cookie.
	d := e.signIn("dev@example.com")
	e.Clock.Add(account.SessionIdle - time.Minute)
	if rec := e.Do("GET", "/developer/keys", nil, d); rec.Code != http.StatusOK {
		t.Fatalf("a session used within the week = %d", rec.Code)
	}
	e.Clock.Add(account.SessionIdle)
	rec = e.Do("GET", "/developer/keys", nil, d)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "Sign in to manage your keys") {
		t.Errorf("a session idle for a week = %d", rec.Code)
	}
	if c := areatest.CookieOf(rec, e.Cookie); c == nil || c.MaxAge >= 0 {
		t.Errorf("an ended session's cookie is not cleared: %v", rec.Result().Cookies())
	}
	// Signing in again ends the session the browser had.
	e2 := e.signIn("dev@example.com")
	r := e.Do("POST", "/developer/signin", url.Values{"token": {e.askLinkAfterMinute("dev@example.com")}}, e2)
	if r.Code != http.StatusSeeOther {
		t.Fatalf("sign in again = %d", r.Code)
	}
	if rec := e.Do("GET", "/developer/keys", nil, e2); rec.Code != http.StatusUnauthorized {
		t.Errorf("the replaced session = %d", rec.Code)
	}
}

// TestDisabledAccount: an account an operator disabled is signed out
// everywhere, may not make keys, and its sign-in link (which works as a
// link) opens a page saying the account is disabled, without a session.
// Enabled again, it signs in and its keys work as before.
func TestDisabledAccount(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	_, prefix := e.createKey(s, url.Values{"name": {"K"}, "kind": {"server"}})
	a := e.Account(1)
	if _, err := e.Store.SetAccountDisabled(t.Context(), a.ID, true); err != nil {
		t.Fatal(err)
	}
	if rec := e.Do("GET", "/developer/keys", nil, s); rec.Code != http.StatusUnauthorized {
		t.Errorf("a disabled account's session = %d, want 401", rec.Code)
	}
	if rec := e.Do("POST", "/developer/keys", url.Values{"name": {"New"}, "kind": {"server"}}, s); rec.Code != http.StatusUnauthorized ||
		areatest.SecretRE.MatchString(rec.Body.String()) {
		t.Errorf("a disabled account makes a key: %d", rec.Code)
	}
	if ks, _ := e.Store.AccountKeys(t.Context(), a.ID); len(ks) != 1 || ks[0].State != apikey.Suspended {
		t.Fatalf("a disabled account's keys = %+v; want its one key, suspended", ks)
	}
	token := e.askLinkAfterMinute("dev@example.com")
	rec := e.useLink(token)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "This account is disabled") {
		t.Fatalf("a disabled account's sign-in link = %d\n%s", rec.Code, rec.Body)
	}
	if c := areatest.CookieOf(rec, e.Cookie); c != nil && c.MaxAge >= 0 {
		t.Errorf("a disabled account got a session cookie: %v", c)
	}
	// The link was used: it does not work twice.
	if rec := e.useLink(token); rec.Code != http.StatusGone {
		t.Errorf("the link used by a disabled account, again = %d, want 410", rec.Code)
	}

	if _, err := e.Store.SetAccountDisabled(t.Context(), a.ID, false); err != nil {
		t.Fatal(err)
	}
	s = e.signIn("dev@example.com")
	if rec := e.Do("GET", "/developer/keys", nil, s); rec.Code != http.StatusOK {
		t.Errorf("an enabled account's keys page = %d", rec.Code)
	}
	if k := e.Key(prefix); k.State != apikey.Active {
		t.Errorf("the key after enabling = %s, want active again", k.State)
	}
}

func (e *env) askLinkAfterMinute(email string) string {
	e.Clock.Add(time.Minute)
	return e.askLink(email)
}

// TestStoreErrors: a store, a mailer or a usage read that cannot answer
// gives the 503 page, never a signed-in page, and nothing is half done.
func TestStoreErrors(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	_, prefix := e.createKey(s, url.Values{"name": {"K"}, "kind": {"server"}})
	check := func(what string, rec *http.Response, body string) {
		t.Helper()
		if rec.StatusCode != http.StatusServiceUnavailable || rec.Header.Get("Retry-After") == "" || !strings.Contains(body, "Try again") {
			t.Errorf("%s = %d", what, rec.StatusCode)
		}
		if strings.Contains(body, "Signed in as") || strings.Contains(body, "dev@example.com") || len(rec.Cookies()) != 0 {
			t.Errorf("%s: a signed-in answer from a failed lookup", what)
		}
	}
	e.Faults.Fail("TouchSession")
	for _, path := range []string{"/developer", "/developer/keys", "/developer/account", "/developer/keys/" + prefix} {
		rec := e.Do("GET", path, nil, s)
		check("GET "+path+" while sessions cannot be read", rec.Result(), rec.Body.String())
	}
	for _, r := range keyRoutes {
		rec := e.Do(r.method, "/developer/keys/"+prefix+r.suffix, r.form, s)
		check(r.method+" "+r.suffix+" while sessions cannot be read", rec.Result(), rec.Body.String())
	}
	if e.Key(prefix).State != apikey.Active {
		t.Error("a route changed a key while sessions could not be read")
	}
	// Without a cookie, the landing page does not need the store.
	if rec := e.Do("GET", "/developer", nil, ""); rec.Code != http.StatusOK {
		t.Errorf("GET /developer without a cookie while the store fails = %d", rec.Code)
	}

	for _, tc := range []struct {
		fail   string
		method string
		path   string
		form   url.Values
	}{
		{"LiveAccountKeys", "GET", "/developer/keys", nil},
		{"EndedAccountKeys", "GET", "/developer/keys", nil},
		{"KeyByPrefix", "GET", "/developer/keys/" + prefix, nil},
		{"TierRequests", "GET", "/developer/keys/" + prefix, nil},
		{"CreateAccountKey", "POST", "/developer/keys", url.Values{"name": {"X"}, "kind": {"server"}}},
		{"RollAccountKey", "POST", "/developer/keys/" + prefix + "/roll", url.Values{"grace": {"1h"}}},
		{"SignInLinkEmail", "GET", "/developer/signin?token=" + strings.Repeat("A", 43), nil},
		{"SetKeyState", "POST", "/developer/keys/" + prefix + "/revoke", url.Values{}},
		{"DeleteAccount", "POST", "/developer/account/delete", url.Values{"confirm": {"dev@example.com"}}},
		{"EndSessions", "POST", "/developer/signout/everywhere", url.Values{}},
		{"CreateTierRequest", "POST", "/developer/keys/" + prefix + "/tier", url.Values{"tier": {"pro"}, "use_case": {"x"}}},
	} {
		e.Faults.Fail(tc.fail)
		rec := e.Do(tc.method, tc.path, tc.form, s)
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "Try again") {
			t.Errorf("%s %s while %s fails = %d", tc.method, tc.path, tc.fail, rec.Code)
		}
	}
	e.Faults.Fail()
	e.Faults.Fail("DailyUsage", "HourlyUsage")
	for _, path := range []string{"/developer/keys", "/developer/keys/" + prefix} {
		if rec := e.Do("GET", path, nil, s); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("GET %s while usage cannot be read = %d", path, rec.Code)
		}
	}
	e.Faults.Fail()

	// Sign-in: a link that cannot be stored or mailed, a session that
	// cannot be made.
	e.Clock.Add(time.Minute)
	e.Faults.Fail("CreateSignInLink")
	if rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {"a@example.com"}}, ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("ask a link while links cannot be stored = %d", rec.Code)
	}
	e.Faults.Fail()
	e.mail.fail = true
	if rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {"b@example.com"}}, ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("ask a link while mail fails = %d", rec.Code)
	}
	e.mail.fail = false
	token := e.askLink("c@example.com")
	e.Faults.Fail("UseSignInLink")
	if rec := e.useLink(token); rec.Code != http.StatusServiceUnavailable || len(rec.Result().Cookies()) != 0 {
		t.Errorf("use a link while links cannot be read = %d", rec.Code)
	}
	e.Faults.Fail("CreateSession")
	if rec := e.useLink(token); rec.Code != http.StatusServiceUnavailable || len(rec.Result().Cookies()) != 0 {
		t.Errorf("use a link while sessions cannot be made = %d %v", rec.Code, rec.Result().Cookies())
	}
	e.Faults.Fail()

	// A roll is one change of the store: one it cannot make makes no key
	// and leaves the old one as it was.
	keys := len(e.Keys())
	e.Faults.Fail("RollAccountKey")
	rec := e.Do("POST", "/developer/keys/"+prefix+"/roll", url.Values{"grace": {"24h"}}, s)
	if rec.Code != http.StatusServiceUnavailable || areatest.SecretRE.MatchString(rec.Body.String()) || len(e.Keys()) != keys ||
		!e.Key(prefix).ExpiresAt.IsZero() {
		t.Errorf("a roll the store cannot make = %d, %d keys made", rec.Code, len(e.Keys())-keys)
	}
	e.Faults.Fail()
}
