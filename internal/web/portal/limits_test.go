package portal_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

// nextPage finds the link to the older ended keys.
var nextPage = regexp.MustCompile(`href="(/developer/keys\?before=[0-9]+)"`)

// working counts the stored keys that still answer at the clock's time:
// not revoked, not past their end.
func (e *env) working() int {
	e.T.Helper()
	n := 0
	for _, k := range e.Keys() {
		if k.State != apikey.Revoked && !k.Expired(e.Clock.Now()) {
			n++
		}
	}
	return n
}

// roll rolls the key with a grace period and returns the answer.
func (e *env) roll(session, prefix, grace string) (code int, body, newPrefix string) {
	e.T.Helper()
	rec := e.follow(e.Do("POST", "/developer/keys/"+prefix+"/roll", url.Values{"grace": {grace}}, session), session)
	if secret := areatest.SecretRE.FindString(rec.Body.String()); secret != "" {
		pk, err := apikey.ParseKey(secret)
		if err != nil {
			e.T.Fatal(err)
		}
		newPrefix = pk.Prefix
	}
	return rec.Code, rec.Body.String(), newPrefix
}

// TestRolledKeysCount: a rolled key in its grace period still works, so it
// counts against MaxKeys; a key whose predecessor still works cannot be
// rolled (at most one key on its way out per key); rolling without a
// grace period replaces the key, so it is allowed at the maximum.
func TestRolledKeysCount(t *testing.T) {
	e := newEnv(t, httpBase, func(c *portal.Config) { c.MaxKeys = 3 })
	s := e.signIn("dev@example.com")
	_, a := e.createKey(s, url.Values{"name": {"A"}, "kind": {"server"}})
	code, _, a2 := e.roll(s, a, "24h")
	if code != http.StatusOK || a2 == "" {
		t.Fatalf("the first roll = %d", code)
	}
	code, body, _ := e.roll(s, a2, "24h")
	if code != http.StatusUnprocessableEntity || areatest.SecretRE.MatchString(body) {
		t.Fatalf("rolling a successor whose predecessor still works = %d, want 422", code)
	}
	areatest.MustContain(t, "the refused roll", body, "The key this one replaced still works")
	e.Do("POST", "/developer/keys/"+a+"/revoke", url.Values{}, s)
	code, _, a3 := e.roll(s, a2, "24h")
	if code != http.StatusOK {
		t.Fatalf("rolling the successor once its predecessor is revoked = %d", code)
	}
	_, b := e.createKey(s, url.Values{"name": {"B"}, "kind": {"server"}})
	// a2 (rolled, working until tomorrow), a3 and B: three keys that work.
	full := e.Do("POST", "/developer/keys", url.Values{"name": {"C"}, "kind": {"server"}}, s)
	if full.Code != http.StatusUnprocessableEntity || areatest.SecretRE.MatchString(full.Body.String()) {
		t.Fatalf("a fourth working key = %d", full.Code)
	}
	areatest.MustContain(t, "the refusal", full.Body.String(), "You have 3 live keys")
	if code, _, _ := e.roll(s, a3, "none"); code != http.StatusUnprocessableEntity {
		t.Errorf("rolling a3 while a2, which it replaced, works = %d, want 422", code)
	}
	if code, _, _ := e.roll(s, b, "1h"); code != http.StatusUnprocessableEntity {
		t.Errorf("a roll with a grace period at the maximum = %d, want 422", code)
	}
	if code, _, _ := e.roll(s, b, "none"); code != http.StatusOK {
		t.Errorf("a roll that revokes the old key at the maximum = %d, want 200", code)
	}
	if n := e.working(); n != 3 {
		t.Errorf("%d keys work, want the maximum, 3", n)
	}
	// Once the grace period ends the rolled key stops counting.
	e.Clock.Add(24 * time.Hour)
	e.createKey(s, url.Values{"name": {"C"}, "kind": {"server"}})
}

// TestMaxKeysUnderConcurrency: keys made at once by one account never
// pass the maximum.
func TestMaxKeysUnderConcurrency(t *testing.T) {
	e := newEnv(t, httpBase, func(c *portal.Config) { c.MaxKeys = 5 })
	s := e.signIn("dev@example.com")
	const n = 10
	codes := make([]int, n)
	storetest.AtOnce(n, func(i int) {
		codes[i] = e.Do("POST", "/developer/keys", url.Values{"name": {fmt.Sprint("K", i)}, "kind": {"server"}}, s).Code
	})
	made := 0
	for _, c := range codes {
		switch c {
		case http.StatusSeeOther: // to the page of the new key
			made++
		case http.StatusUnprocessableEntity:
		default:
			t.Errorf("a concurrent create = %d", c)
		}
	}
	if made != 5 || e.working() != 5 {
		t.Errorf("%d of %d concurrent creates made a key (%d work), want the maximum, 5", made, n, e.working())
	}
}

// TestKeyCreationRate: an account makes at most KeysPerHour keys an hour,
// rolls included, whatever it revokes meanwhile.
func TestKeyCreationRate(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	first := e.Clock.Now()
	for i := range portal.DefaultKeysPerHour - 1 {
		_, p := e.createKey(s, url.Values{"name": {fmt.Sprint("K", i)}, "kind": {"server"}})
		e.Do("POST", "/developer/keys/"+p+"/revoke", url.Values{}, s)
		e.Clock.Add(time.Minute)
	}
	_, last := e.createKey(s, url.Values{"name": {"Last"}, "kind": {"server"}})
	if code, _, _ := e.roll(s, last, "none"); code != http.StatusUnprocessableEntity {
		t.Errorf("a roll past the hour's keys = %d, want 422", code)
	}
	rec := e.Do("POST", "/developer/keys", url.Values{"name": {"One more"}, "kind": {"server"}}, s)
	if rec.Code != http.StatusUnprocessableEntity || areatest.SecretRE.MatchString(rec.Body.String()) {
		t.Fatalf("a key past the hour's = %d", rec.Code)
	}
	areatest.MustContain(t, "the refusal", rec.Body.String(), fmt.Sprintf("at most %d keys an hour", portal.DefaultKeysPerHour))
	e.Clock.Set(first.Add(time.Hour + time.Second))
	e.createKey(s, url.Values{"name": {"An hour later"}, "kind": {"server"}})
}

// TestSuspendedKeyHoldsTheAccount: while the account holds a key an
// operator suspended, it can neither make nor roll keys, and revoking the
// suspended key does not free it; the pages say why and how to appeal.
// The operator's resuming or releasing the hold frees it.
func TestSuspendedKeyHoldsTheAccount(t *testing.T) {
	e := newEnv(t, httpBase, func(c *portal.Config) { c.Contact = "ops@example.com" })
	s := e.signIn("dev@example.com")
	_, bad := e.createKey(s, url.Values{"name": {"Scraper"}, "kind": {"server"}})
	_, good := e.createKey(s, url.Values{"name": {"Shop"}, "kind": {"server"}})
	if _, err := e.Store.SetKeyState(context.Background(), bad, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	if rec := e.Do("POST", "/developer/keys/"+bad+"/revoke", url.Values{}, s); rec.Code != http.StatusSeeOther {
		t.Fatalf("revoking the suspended key = %d", rec.Code)
	}
	keys := e.Do("GET", "/developer/keys", nil, s).Body.String()
	areatest.MustContain(t, "the keys page of a held account", keys, "suspended", "ops@example.com", "tier request")
	if strings.Contains(keys, `action="/developer/keys"`) {
		t.Error("the keys page of a held account offers the create form")
	}
	rec := e.Do("POST", "/developer/keys", url.Values{"name": {"Fresh start"}, "kind": {"server"}}, s)
	if rec.Code != http.StatusUnprocessableEntity || areatest.SecretRE.MatchString(rec.Body.String()) {
		t.Fatalf("a new key while a suspended key is held = %d", rec.Code)
	}
	areatest.MustContain(t, "the refused create", rec.Body.String(), "suspended", "ops@example.com")
	if code, body, _ := e.roll(s, good, "none"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "suspended") {
		t.Errorf("a roll while a suspended key is held = %d", code)
	}
	if e.Key(good).State != apikey.Active || e.working() != 1 {
		t.Errorf("the refusals changed a key: %d work", e.working())
	}
	if _, err := e.Store.ReleaseKeyHold(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	e.createKey(s, url.Values{"name": {"After the appeal"}, "kind": {"server"}})
}

// TestEndedKeysLeaveTheList: keys that stopped working more than 30 days
// ago leave the keys page (their pages stay); the ended keys of the last
// 30 days are listed a page at a time, newest first.
func TestEndedKeysLeaveTheList(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	_, old := e.createKey(s, url.Values{"name": {"Old one"}, "kind": {"server"}})
	e.Do("POST", "/developer/keys/"+old+"/revoke", url.Values{}, s)
	_, rolled := e.createKey(s, url.Values{"name": {"Rolled one"}, "kind": {"server"}})
	if code, _, _ := e.roll(s, rolled, "1h"); code != http.StatusOK {
		t.Fatalf("roll = %d", code)
	}
	e.Clock.Add(31 * 24 * time.Hour)
	s = e.signIn("dev@example.com")
	var recent []string
	for i := range 25 {
		_, p := e.createKey(s, url.Values{"name": {fmt.Sprintf("Recent %02d", i)}, "kind": {"server"}})
		e.Do("POST", "/developer/keys/"+p+"/revoke", url.Values{}, s)
		recent = append(recent, p)
		e.Clock.Add(7 * time.Minute) // within the hour's keys
	}
	page := e.Do("GET", "/developer/keys", nil, s).Body.String()
	for _, gone := range []string{old, rolled} {
		if strings.Contains(page, gone) {
			t.Errorf("a key that ended over 30 days ago is listed: %s", gone)
		}
		if rec := e.Do("GET", "/developer/keys/"+gone, nil, s); rec.Code != http.StatusOK {
			t.Errorf("the page of a key that left the list = %d", rec.Code)
		}
	}
	areatest.MustContain(t, "the first page", page, recent[24], recent[5], "Older keys")
	if strings.Contains(page, recent[4]) {
		t.Error("the first page lists more than 20 ended keys")
	}
	next := nextPage.FindStringSubmatch(page)
	if next == nil {
		t.Fatal("no link to the older keys")
	}
	older := e.Do("GET", strings.ReplaceAll(next[1], "&amp;", "&"), nil, s)
	if older.Code != http.StatusOK {
		t.Fatalf("the older keys = %d", older.Code)
	}
	areatest.MustContain(t, "the second page", older.Body.String(), recent[4], recent[0])
	if strings.Contains(older.Body.String(), recent[5]) {
		t.Error("the second page repeats the first")
	}
	for _, bad := range []string{"x", "-1", "99999999999999999999"} {
		if rec := e.Do("GET", "/developer/keys?before="+bad, nil, s); rec.Code != http.StatusBadRequest {
			t.Errorf("?before=%s = %d", bad, rec.Code)
		}
	}
}
