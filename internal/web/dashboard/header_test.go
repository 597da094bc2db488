package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestDashboardHeader: every page of the dashboard has the dashboard's own
// header, never the site's with its perfume search, and no cookie banner
// (the dashboard's one cookie is strictly necessary): signed in, the
// sections, the admin's address and Sign out, the current section marked;
// the sign-in form and the message pages, a header that names nobody.
func TestDashboardHeader(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	session := e.admin()
	noSiteFrame := func(what, body string) {
		t.Helper()
		areatest.MustContain(t, what, body, `<header class="top adminhead">`, `<a class="logo" href="/admin">`)
		for _, not := range []string{`class="consent"`, `class="asking"`, `id="top-q"`, `href="/brands"`} {
			if strings.Contains(body, not) {
				t.Errorf("%s: the site's frame (%s)", what, not)
			}
		}
	}
	for _, p := range []struct{ path, current string }{
		{"/admin", `<a href="/admin" aria-current="true">Overview</a>`},
		{"/admin/keys", `<a href="/admin/keys" aria-current="true">Keys</a>`},
		{"/admin/audit", `<a href="/admin/audit" aria-current="true">Audit log</a>`},
		{"/admin/totp", `<a href="/admin/totp" aria-current="true">Second factor</a>`},
	} {
		body := e.get(p.path, session).Body.String()
		noSiteFrame(p.path, body)
		areatest.MustContain(t, p.path, body, `<nav class="adminbar" aria-label="Main">`, p.current,
			`<span class="email">ops@example.com</span>`, `<form class="who" method="post" action="/admin/signout">`)
		if strings.Count(body, `aria-current="true"`) != 1 {
			t.Errorf("%s: not one section marked current", p.path)
		}
	}
	signin := e.get("/admin/signin", "")
	noSiteFrame("the sign-in form", signin.Body.String())
	e.Faults.Fail("ListKeys")
	unavailable := e.get("/admin", session)
	if unavailable.Code != http.StatusServiceUnavailable {
		t.Fatalf("the overview while the store fails: %d", unavailable.Code)
	}
	for what, body := range map[string]string{"the sign-in form": signin.Body.String(), "the message page": unavailable.Body.String()} {
		noSiteFrame(what, body)
		if strings.Contains(body, `class="adminbar"`) || strings.Contains(body, "Sign out") {
			t.Errorf("%s: a header that names an admin", what)
		}
	}
}
