package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestEveryActionIsAudited: every action changes what it says, writes one
// audit entry (the admin, the client IP, the action, the target, the
// reason, what changed) and tells the Guard when keys changed.
func TestEveryActionIsAudited(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seedAsking(e, apikey.Enterprise)
	const other = "fds_Efgh5678"
	e.addKey(apikey.Key{Prefix: other, Tier: apikey.Free, State: apikey.Active, AccountID: 1})
	e.addRequest(1, other, apikey.Basic)
	session := e.admin()
	key := func() apikey.Key { return e.Key(testPrefix) }
	for _, c := range []struct {
		name, path     string
		form           url.Values
		status         int
		action, target string
		reason, detail string
		keysChanged    bool
		done           func() bool
	}{
		{"create", "/admin/keys", url.Values{"name": {"Partner"}, "email": {"p@example.com"}, "tier": {"basic"}, "per_day": {"5000"},
			"origins": {"https://app.example.com"}, "reason": {"partner deal"}},
			http.StatusOK, "key.create", "", "partner deal", "tier basic, limits tier's/min 5000/day, origins https://app.example.com", true,
			func() bool {
				ks := e.Keys()
				return len(ks) == 3 && ks[2].Name == "Partner" && ks[2].PerDay == 5000
			}},
		{"tier", "/admin/keys/" + testPrefix + "/tier", url.Values{"tier": {"pro"}, "reason": {"paid"}},
			http.StatusSeeOther, "key.tier", testPrefix, "paid", "free → pro", true,
			func() bool { return key().Tier == apikey.Pro }},
		{"limits", "/admin/keys/" + testPrefix + "/limits", url.Values{"per_minute": {"100"}, "per_day": {"5,000"}, "reason": {"burst"}},
			http.StatusSeeOther, "key.limits", testPrefix, "burst", "tier's/min tier's/day → 100/min 5000/day", true,
			func() bool { return key().PerMinute == 100 && key().PerDay == 5000 }},
		{"suspend", "/admin/keys/" + testPrefix + "/suspend", url.Values{"reason": {"scraping"}},
			http.StatusSeeOther, "key.suspend", testPrefix, "scraping", "active → suspended", true,
			func() bool { return key().State == apikey.Suspended }},
		{"resume", "/admin/keys/" + testPrefix + "/resume", url.Values{"reason": {"talked to them"}},
			http.StatusSeeOther, "key.resume", testPrefix, "talked to them", "suspended → active", true,
			func() bool { return key().State == apikey.Active }},
		{"approve", "/admin/tier-requests/1/approve", url.Values{"note": {"Welcome to enterprise."}},
			http.StatusSeeOther, "tier_request.approve", testPrefix, "Welcome to enterprise.", "request #1 approved: pro → enterprise", true,
			func() bool {
				r := e.Requests()[0]
				return key().Tier == apikey.Enterprise && r.State == account.Approved && r.Note == "Welcome to enterprise." && !r.DecidedAt.IsZero()
			}},
		{"decline", "/admin/tier-requests/2/decline", url.Values{"note": {"Tell us more about the volume."}},
			http.StatusSeeOther, "tier_request.decline", other, "Tell us more about the volume.", "request #2 for the basic tier declined", false,
			func() bool {
				r := e.Requests()[1]
				return e.Key(other).Tier == apikey.Free && r.State == account.Declined && r.Note == "Tell us more about the volume."
			}},
		{"disable", "/admin/accounts/1/disable", url.Values{"reason": {"fraud"}},
			http.StatusSeeOther, "account.disable", "account:1", "fraud", "disabled; its live keys suspended, its sessions ended", true,
			func() bool { return e.Account(1).Disabled && key().State == apikey.Suspended }},
		{"enable", "/admin/accounts/1/enable", url.Values{"reason": {"cleared"}},
			http.StatusSeeOther, "account.enable", "account:1", "cleared", "enabled; the keys disabling suspended are resumed", true,
			func() bool { return !e.Account(1).Disabled && key().State == apikey.Active }},
		{"revoke", "/admin/keys/" + testPrefix + "/revoke", url.Values{"reason": {"leaked"}},
			http.StatusSeeOther, "key.revoke", testPrefix, "leaked", "active → revoked", true,
			func() bool { return key().State == apikey.Revoked }},
	} {
		before, changed := len(e.entries()), e.changed.Load()
		rec := e.post(c.path, c.form, session)
		if rec.Code != c.status {
			t.Errorf("%s: %d, want %d\n%s", c.name, rec.Code, c.status, rec.Body)
			continue
		}
		if !c.done() {
			t.Errorf("%s: not done", c.name)
		}
		es := e.entries()
		if len(es) != before+1 {
			t.Errorf("%s: %d audit entries written, want 1", c.name, len(es)-before)
			continue
		}
		got := es[len(es)-1]
		target := c.target
		if target == "" && strings.HasPrefix(got.Target, "fds_") {
			target = got.Target
		}
		if got.Actor != "ops@example.com" || got.IP != adminIP || got.Action != c.action || got.Target != target ||
			got.Reason != c.reason || got.Detail != c.detail || !got.At.Equal(start) {
			t.Errorf("%s: audited as %+v", c.name, got)
		}
		if moved := e.changed.Load() != changed; moved != c.keysChanged {
			t.Errorf("%s: KeysChanged called %v, want %v", c.name, moved, c.keysChanged)
		}
	}
	// The audit log lists each action, newest first.
	rec := e.get("/admin/audit", session)
	rows := tableRows(t, rec.Body.String(), "audit")
	if len(rows) != len(e.entries()) || rows[0][4] != "key.revoke" || rows[len(rows)-1][4] != "signin" {
		t.Errorf("audit log rows: %q", rows)
	}
	assertCSVMatches(t, "audit", e.get("/admin/audit?format=csv&table=audit", session).Body.String(), rows)
	// Filtered by target.
	rows = tableRows(t, e.get("/admin/audit?target=account:1", session).Body.String(), "audit")
	if len(rows) != 2 || rows[0][4] != "account.enable" || rows[1][4] != "account.disable" {
		t.Errorf("audit of account:1: %q", rows)
	}
}

// TestActionsRefused: an action without a reason, or one that cannot be,
// is shown again with what is wrong (422), and nothing changes or is
// audited.
func TestActionsRefused(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	gone := e.addAccount("gone@example.com")
	if err := e.Store.DeleteAccount(t.Context(), gone.ID, start); err != nil {
		t.Fatal(err)
	}
	session := e.admin()
	before := len(e.entries())
	p := "/admin/keys/" + testPrefix
	for _, c := range []struct {
		path string
		form url.Values
		want string
		keep bool // the form is shown again with the reason typed
	}{
		{p + "/suspend", url.Values{}, "Give a reason", false},
		{p + "/suspend", url.Values{"reason": {"   "}}, "Give a reason", false},
		{p + "/suspend", url.Values{"reason": {strings.Repeat("x", 501)}}, "at most 500", false},
		{p + "/resume", url.Values{"reason": {"x"}}, "active already", false},
		{p + "/tier", url.Values{"tier": {"free"}, "reason": {"x"}}, "free tier already", true},
		{p + "/tier", url.Values{"tier": {"platinum"}, "reason": {"x"}}, "Choose a tier", true},
		{p + "/limits", url.Values{"per_minute": {"-1"}, "reason": {"x"}}, "whole numbers", true},
		{p + "/limits", url.Values{"per_minute": {"lots"}, "reason": {"x"}}, "whole numbers", true},
		{"/admin/keys", url.Values{"name": {"x"}, "tier": {"free"}, "origins": {"not an origin"}, "reason": {"x"}}, "Origins are", true},
		{"/admin/keys", url.Values{"name": {"x"}, "tier": {"free"}}, "Give a reason", false},
		{"/admin/accounts/1/enable", url.Values{"reason": {"x"}}, "active already", false},
		{"/admin/accounts/2/disable", url.Values{"reason": {"x"}}, "deleted by its developer", false},
		{"/admin/tier-requests/1/decline", url.Values{"note": {""}}, "Write a message", false},
	} {
		rec := e.post(c.path, c.form, session)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("POST %s %v: %d, want 422 with %q", c.path, c.form, rec.Code, c.want)
		}
		if r := strings.TrimSpace(c.form.Get("reason")); r != "" && len(r) < 100 && c.keep && !strings.Contains(rec.Body.String(), `value="`+r+`"`) {
			t.Errorf("POST %s: the reason typed is lost", c.path)
		}
	}
	if k := e.Key(testPrefix); k.State != apikey.Active || k.Tier != apikey.Free || len(e.Keys()) != 1 {
		t.Errorf("the key changed: %+v", k)
	}
	if n := len(e.entries()) - before; n != 0 {
		t.Errorf("%d audit entries for refused actions", n)
	}
	// Unknown things are 404s; a decided request is not pending.
	for _, path := range []string{"/admin/keys/fds_Zzzz9999/suspend", "/admin/keys/nonsense/suspend", "/admin/accounts/99/disable", "/admin/accounts/x/disable"} {
		if rec := e.post(path, url.Values{"reason": {"x"}}, session); rec.Code != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, rec.Code)
		}
	}
	e.post("/admin/tier-requests/1/decline", url.Values{"note": {"no"}}, session)
	if rec := e.post("/admin/tier-requests/1/approve", url.Values{"note": {"yes"}}, session); rec.Code != http.StatusConflict {
		t.Errorf("approving a declined request: %d", rec.Code)
	}
	// A revoked key cannot be changed; a request for it cannot be approved.
	if _, err := e.Store.SetKeyState(t.Context(), testPrefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	revoked := e.addRequest(1, testPrefix, apikey.Pro)
	if rec := e.post(p+"/tier", url.Values{"tier": {"pro"}, "reason": {"x"}}, session); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("changing a revoked key: %d", rec.Code)
	}
	if rec := e.post(fmt.Sprintf("/admin/tier-requests/%d/approve", revoked.ID), url.Values{"note": {"x"}}, session); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("approving a request of a revoked key: %d", rec.Code)
	}
}

// TestResumeNeedsTheAccount: a key of a disabled account is resumed by
// enabling the account, not alone.
func TestResumeNeedsTheAccount(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	e.post("/admin/accounts/1/disable", url.Values{"reason": {"x"}}, session)
	rec := e.post("/admin/keys/"+testPrefix+"/resume", url.Values{"reason": {"x"}}, session)
	if rec.Code != http.StatusUnprocessableEntity || e.Key(testPrefix).State != apikey.Suspended {
		t.Errorf("resuming a key of a disabled account: %d", rec.Code)
	}
}

// TestAuditFailure: an action the audit log cannot take is done, and the
// admin is told it is not in the log (500).
func TestAuditFailure(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	seed(e)
	session := e.admin()
	e.Faults.Fail("AppendAudit")
	rec := e.post("/admin/keys/"+testPrefix+"/suspend", url.Values{"reason": {"x"}}, session)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "not in the audit log") {
		t.Errorf("suspend without the audit log: %d", rec.Code)
	}
}

// TestCreatedKeyShownOnce: a new key is shown on a page no cache keeps,
// and never again.
func TestCreatedKeyShownOnce(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	rec := e.post("/admin/keys", url.Values{"name": {"x"}, "tier": {"free"}, "reason": {"test"}}, session)
	secret := areatest.SecretRE.FindString(rec.Body.String())
	if rec.Code != http.StatusOK || secret == "" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %d %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
	pk, err := apikey.ParseKey(secret)
	if err != nil || e.Key(pk.Prefix).Hash != pk.Hash {
		t.Fatalf("the key shown is not the key stored: %v", err)
	}
	if body := e.get("/admin/keys/"+pk.Prefix, session).Body.String(); strings.Contains(body, secret) {
		t.Error("the key's page shows the key")
	}
}
