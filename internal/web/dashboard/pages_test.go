package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// manyKeys stores n keys, a minute apart: every third suspended, every
// fifth on pro, even ones with an email at example.org.
func manyKeys(e *env, n int) {
	defer e.Clock.Set(e.Clock.Now())
	for i := range n {
		e.Clock.Set(start.Add(time.Duration(i) * time.Minute))
		k := apikey.Key{Prefix: fmt.Sprintf("fds_K%07d", i), Name: fmt.Sprintf("App %d", i), Tier: apikey.Free, State: apikey.Active}
		if i%3 == 0 {
			k.State = apikey.Suspended
		}
		if i%5 == 0 {
			k.Tier = apikey.Pro
		}
		if i%2 == 0 {
			k.Email = fmt.Sprintf("dev%d@Example.org", i)
		}
		e.addKey(k)
	}
}

// TestKeySearch: the key list finds by prefix, email, name, tier and
// state, newest first, a page at a time, the search kept in the pages'
// links and the CSV.
func TestKeySearch(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	manyKeys(e, 120)
	session := e.admin()
	count := func(q string) (int, [][]string) {
		t.Helper()
		rec := e.get("/admin/keys?"+q, session)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", q, rec.Code)
		}
		rows := tableRows(t, rec.Body.String(), "keys")
		return len(rows), rows
	}
	for q, want := range map[string]int{
		"":                                 50,
		"page=3":                           20,
		"prefix=fds_K000011":               10, // 110..119
		"email=EXAMPLE.ORG":                50,
		"email=example.org&page=2":         10,
		"name=App+7":                       1 + 10, // 7, 70..79
		"tier=pro":                         24,
		"state=suspended":                  40,
		"tier=pro&state=suspended":         8,
		"state=revoked":                    0,
		"prefix=fds_K0000117&state=active": 0,
	} {
		if n, _ := count(q); n != want {
			t.Errorf("%q: %d rows, want %d", q, n, want)
		}
	}
	_, rows := count("")
	if rows[0][0] != "fds_K0000119" || rows[49][0] != "fds_K0000070" {
		t.Errorf("not newest first: %s … %s", rows[0][0], rows[49][0])
	}
	body := e.get("/admin/keys?email=example.org&page=2", session).Body.String()
	areatest.MustContain(t, "paged search", body, `href="/admin/keys?email=example.org" rel="prev"`,
		`href="/admin/keys?email=example.org&amp;format=csv&amp;page=2&amp;table=keys"`)
	rec := e.get("/admin/keys?email=example.org&page=2&format=csv&table=keys", session)
	assertCSVMatches(t, "keys", rec.Body.String(), tableRows(t, body, "keys"))
	for _, q := range []string{"page=0", "page=x"} {
		if rec := e.get("/admin/keys?"+q, session); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d", q, rec.Code)
		}
	}
	if rec := e.get("/admin/keys?page=4", session); rec.Code != http.StatusNotFound {
		t.Errorf("a page past the end: %d", rec.Code)
	}
}

// TestKeyPage: a key's page shows its usage, its refusals, its signals,
// its origins and what admins did to it; an unknown key is a 404.
func TestKeyPage(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	knownLoad(e)
	e.Exec(`UPDATE api_keys SET origins = '["https://shop.example"]' WHERE prefix = ?`, keyA) // no method of the store changes them
	e.signals([]usage.Signal{
		{ID: 1, Kind: usage.SignalLimitHits, KeyPrefix: keyA, Count: 50, Window: 10 * time.Minute, Detail: "lives at its limit", At: start.Add(-time.Hour)},
		{ID: 2, Kind: usage.SignalManyIPs, KeyPrefix: keyB, Count: 80, Window: time.Hour, At: start.Add(-time.Hour)},
	})
	session := e.admin()
	e.post("/admin/keys/"+keyA+"/limits", url.Values{"per_minute": {"7"}, "per_day": {"0"}, "reason": {"trial"}}, session)
	rec := e.get("/admin/keys/"+keyA, session)
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("key page: %d", rec.Code)
	}
	areatest.MustContain(t, "key page", body, "https://shop.example", "7 a minute, 250,000 a day", "(the key's own)")
	if rows := tableRows(t, body, "refusals"); len(rows) != 1 || rows[0][0] != "2026-03-10 12:00" || rows[0][2] != "5" {
		t.Errorf("refusals: %q", rows)
	}
	if rows := tableRows(t, body, "signals"); len(rows) != 1 || rows[0][2] != usage.SignalLimitHits {
		t.Errorf("signals: %q", rows)
	}
	if rows := tableRows(t, body, "audit"); len(rows) != 1 || rows[0][4] != "key.limits" || rows[0][6] != "trial" {
		t.Errorf("audit: %q", rows)
	}
	if rows := tableRows(t, body, "endpoints"); len(rows) != 1 || rows[0][1] != "147" {
		t.Errorf("endpoints: %q", rows)
	}
	for _, id := range []string{"daily", "hourly", "endpoints", "refusals", "signals", "audit"} {
		csv := e.get("/admin/keys/"+keyA+"?format=csv&table="+id, session).Body.String()
		assertCSVMatches(t, id, csv, tableRows(t, body, id))
	}
	for _, p := range []string{"/admin/keys/fds_Zzzz9999", "/admin/keys/" + strings.ToLower(keyA), "/admin/keys/fds_Aaaa1111x"} {
		if rec := e.get(p, session); !is404(rec) {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}

// TestAccounts: the account list and an account's page.
func TestAccounts(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	e.addAccount("other@example.net")
	session := e.admin()
	body := e.get("/admin/accounts", session).Body.String()
	rows := tableRows(t, body, "accounts")
	if len(rows) != 2 || rows[0][0] != "account:1" || rows[0][1] != "dev@example.com" || rows[0][3] != "1" || rows[1][3] != "0" {
		t.Errorf("accounts: %q", rows)
	}
	if rows := tableRows(t, e.get("/admin/accounts?q=NET", session).Body.String(), "accounts"); len(rows) != 1 || rows[0][0] != "account:2" {
		t.Errorf("accounts found by email: %q", rows)
	}
	body = e.get("/admin/accounts/1", session).Body.String()
	if rows := tableRows(t, body, "keys"); len(rows) != 1 || rows[0][0] != testPrefix {
		t.Errorf("the account's keys: %q", rows)
	}
	if rows := tableRows(t, body, "requests"); len(rows) != 1 || rows[0][2] != "pro" || rows[0][3] != "pending" {
		t.Errorf("the account's requests: %q", rows)
	}
	areatest.MustContain(t, "account page", body, `action="/admin/accounts/1/disable"`, `for="disable-reason">Reason</label>`)
	for _, p := range []string{"/admin/accounts/99", "/admin/accounts/01", "/admin/accounts/-1"} {
		if rec := e.get(p, session); !is404(rec) {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}

// TestTierRequestsPage: the pending requests, each with its forms; the
// CSV holds the table.
func TestTierRequestsPage(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	body := e.get("/admin/tier-requests", session).Body.String()
	areatest.MustContain(t, "tier requests", body, `action="/admin/tier-requests/1/approve"`, `action="/admin/tier-requests/1/decline"`,
		"Approved: the key is on the pro tier now.", "a shop", ">Approve</button>", ">Decline</button>")
	rows := tableRows(t, body, "requests")
	if len(rows) != 1 || rows[0][2] != "dev@example.com" || rows[0][4] != "free" || rows[0][5] != "pro" {
		t.Errorf("requests: %q", rows)
	}
	assertCSVMatches(t, "requests", e.get("/admin/tier-requests?format=csv&table=requests", session).Body.String(), rows)
}

// TestAbuse: the signals newest first, filtered by kind, each of a key
// with its Suspend form; the bar counts the signals this admin has not
// marked seen, and the mark holds (it is in the store).
func TestAbuse(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	e.signals([]usage.Signal{
		{ID: 1, Kind: usage.SignalFailedChecks, ClientIP: "198.51.100.7", Count: 30, Window: time.Minute, At: start.Add(-2 * time.Hour)},
		{ID: 2, Kind: usage.SignalLimitHits, KeyPrefix: testPrefix, Count: 50, Window: 10 * time.Minute, At: start.Add(-time.Hour)},
		{ID: 3, Kind: "scrape_pages", KeyPrefix: testPrefix, Count: 200, Window: time.Hour, Detail: "/api/perfumes page after page", At: start.Add(-time.Minute)},
	})
	session := e.admin()
	body := e.get("/admin/abuse", session).Body.String()
	areatest.MustContain(t, "abuse", body, "(3 new)", `<option value="scrape_pages">`, `action="/admin/keys/`+testPrefix+`/suspend"`,
		`value="Abuse signal #3: scrape_pages, 200 in 1h0m0s"`)
	rows := tableRows(t, body, "signals")
	if len(rows) != 3 || rows[0][1] != "#3" || rows[2][1] != "#1" || rows[0][8] != "new" {
		t.Errorf("signals: %q", rows)
	}
	if n := strings.Count(body, `class="rowform"`); n != 2 {
		t.Errorf("%d Suspend forms, want 2 (the failed checks have no key)", n)
	}
	rows = tableRows(t, e.get("/admin/abuse?kind=limit_hits", session).Body.String(), "signals")
	if len(rows) != 1 || rows[0][1] != "#2" {
		t.Errorf("signals of a kind: %q", rows)
	}
	var shown [][]string
	for _, r := range tableRows(t, body, "signals") {
		shown = append(shown, r[:len(r)-1]) // the CSV has no Action column
	}
	assertCSVMatches(t, "signals", e.get("/admin/abuse?format=csv&table=signals", session).Body.String(), shown)

	// Suspend from the list.
	rec := e.post("/admin/keys/"+testPrefix+"/suspend", url.Values{"reason": {"Abuse signal #3: scrape_pages"}}, session)
	if rec.Code != http.StatusSeeOther || e.Key(testPrefix).State != apikey.Suspended {
		t.Errorf("suspend from a signal: %d", rec.Code)
	}

	// Seen: up to the newest shown; a later signal is new again.
	if rec := e.post("/admin/abuse/seen", url.Values{"upto": {"3"}}, session); rec.Code != http.StatusSeeOther {
		t.Fatalf("mark as seen: %d", rec.Code)
	}
	areatest.MustContain(t, "after marking", e.get("/admin/keys", session).Body.String(), "(none new)")
	e.signals([]usage.Signal{{ID: 4, Kind: usage.SignalManyIPs, KeyPrefix: testPrefix, Count: 90, Window: time.Hour, At: start}})
	areatest.MustContain(t, "a new signal", e.get("/admin/audit", session).Body.String(), "(1 new)")
	// Another admin has seen nothing.
	e.addAdmin("second@example.com")
	other := e.signIn("second@example.com", "")
	areatest.MustContain(t, "another admin", e.get("/admin", other).Body.String(), "(4 new)")
	// A store that cannot count does not hide the page.
	e.Faults.Fail("Signals")
	rec = e.get("/admin/keys", session)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "(new signals: ?)") {
		t.Errorf("the bar without signals: %d", rec.Code)
	}
}
