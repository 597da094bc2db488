package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestReleaseHold: suspending a key of an account holds the account (it
// may make no keys), which the account's page says; an admin releases
// the hold with a reason, audited; a hold that is not there is not
// released.
func TestReleaseHold(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	if rec := e.post("/admin/keys/"+testPrefix+"/suspend", url.Values{"reason": {"scraping"}}, session); rec.Code != http.StatusSeeOther {
		t.Fatalf("suspend = %d", rec.Code)
	}
	if !e.Account(1).Held() {
		t.Fatal("suspending a key did not hold its account")
	}
	areatest.MustContain(t, "a held account's page", e.get("/admin/accounts/1", session).Body.String(),
		"<dt>Held</dt>", `action="/admin/accounts/1/release"`)
	if rec := e.post("/admin/accounts/1/release", url.Values{"reason": {""}}, session); rec.Code != http.StatusUnprocessableEntity || !e.Account(1).Held() {
		t.Errorf("a release without a reason = %d", rec.Code)
	}
	if rec := e.post("/admin/accounts/1/release", url.Values{"reason": {"appeal heard"}}, session); rec.Code != http.StatusSeeOther {
		t.Fatalf("release = %d", rec.Code)
	}
	if e.Account(1).Held() || e.Key(testPrefix).State != apikey.Suspended {
		t.Errorf("after the release: account %+v, key %s; want not held, the key still suspended", e.Account(1), e.Key(testPrefix).State)
	}
	es := e.entries()
	if last := es[len(es)-1]; last.Action != "account.release" || last.Target != "account:1" || last.Reason != "appeal heard" ||
		!strings.Contains(last.Detail, "released") {
		t.Errorf("the release is audited as %+v", last)
	}
	rec := e.post("/admin/accounts/1/release", url.Values{"reason": {"again"}}, session)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "The account is not held") {
		t.Errorf("releasing an account that is not held = %d", rec.Code)
	}
}

// TestDuplicateAccounts: accounts that shared an address before addresses
// were folded are listed as such, each page names the others, and
// disabling one disables all, which the audit entry says.
func TestDuplicateAccounts(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.addAccount("dev@example.com")
	e.Exec(`INSERT INTO accounts (email, email_key, created_at, duplicate_of) VALUES ('Dev@example.com', 'dev@example.com', ?, 1)`,
		start.UnixMilli())
	session := e.admin()
	list := e.get("/admin/accounts", session).Body.String()
	areatest.MustContain(t, "the accounts page", list, "Some addresses have more than one account")
	rows := tableRows(t, list, "duplicates")
	if len(rows) != 2 || rows[0][0] != "account:1" || rows[1][0] != "account:2" || rows[1][3] != "account:1" {
		t.Fatalf("the duplicates table: %q", rows)
	}
	areatest.MustContain(t, "a duplicate's page", e.get("/admin/accounts/2", session).Body.String(), "shares its address with another")
	if rec := e.post("/admin/accounts/2/disable", url.Values{"reason": {"fraud"}}, session); rec.Code != http.StatusSeeOther {
		t.Fatalf("disable = %d", rec.Code)
	}
	if !e.Account(1).Disabled || !e.Account(2).Disabled {
		t.Errorf("disabling one of an address's accounts: %v and %v, want both disabled", e.Account(1).Disabled, e.Account(2).Disabled)
	}
	es := e.entries()
	if last := es[len(es)-1]; last.Action != "account.disable" || !strings.HasSuffix(last.Detail, "; with it, of the same address, account:1") {
		t.Errorf("the disabling is audited as %+v", last)
	}
	if rows := tableRows(t, e.get("/admin/accounts/1", session).Body.String(), "duplicates"); len(rows) != 2 || rows[1][0] != "account:2" {
		t.Errorf("the older account's page lists %q, want both accounts", rows)
	}
}
