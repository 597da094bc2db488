package browser_test

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// adminJourney is the operator's morning: a developer files a tier
// request through the portal; an admin made with the CLI signs in to the
// dashboard, reads the overview's charts, downloads a CSV, finds the
// developer's key, suspends it with a reason (the API refuses it at once),
// sees the account held (the portal makes no key), resumes it, approves
// the tier request (the portal shows the answer),
// and finds every action in the audit log. Every dashboard page is
// checked with axe-core and photographed at 390 and 1280 px, where nothing
// may scroll sideways.
func adminJourney(t *testing.T, svc *service) {
	look := photographer(t, "admin")

	// A developer makes a key and asks for the pro tier.
	dev := browser(t)
	email := fmt.Sprintf("shop-%d@example.com", time.Now().UnixNano())
	run(t, dev, chromedp.Navigate(svc.base+"/developer"), chromedp.Click(css(`section.consent button[value=reject]`)),
		chromedp.WaitNotPresent(css(`section.consent`)), chromedp.SendKeys(css(`#email`), email))
	submit(t, dev, `form[action="/developer/signin/link"] button`)
	link := signInLink(t, filepath.Join(filepath.Dir(svc.db), "outbox"), email)
	run(t, dev, chromedp.Navigate(link), chromedp.Click(css(`form[action="/developer/signin"] button`)), chromedp.WaitVisible(css(`#key-name`)),
		chromedp.SendKeys(css(`#key-name`), "Shop"), chromedp.Click(css(`form[action="/developer/keys"] button[type=submit]`)),
		chromedp.WaitVisible(css(`#new-key`)))
	key := get(t, dev, chromedp.Text(css(`#new-key`)))
	prefix := key[:12]
	run(t, dev, chromedp.Navigate(svc.base+"/developer/keys/"+prefix), chromedp.WaitVisible(css(`#use-case`)),
		chromedp.SetValue(css(`#tier-choice`), "pro"), chromedp.SendKeys(css(`#use-case`), "A perfume shop's search."))
	submit(t, dev, `form[action$="/tier"] button`)

	// The admin, made with the CLI.
	const password = "a long enough password"
	create := exec.Command(svc.bin, "admin", "create-user", "--db", svc.db, "--email", "ops@example.com", "--password-stdin")
	create.Stdin = strings.NewReader(password + "\n")
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("admin create-user: %v\n%s", err, out)
	}

	// Sign in: /admin asks for it first, without a cookie banner (the
	// dashboard's one cookie is strictly necessary).
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/admin"), chromedp.WaitVisible(css(`#password`)))
	if bannerShown(t, ctx) {
		t.Error("a cookie banner on the dashboard's sign-in form")
	}
	for id, label := range map[string]string{"email": "Email", "password": "Password", "code": "Code"} {
		if l := get(t, ctx, chromedp.Text(css(`label[for=`+id+`]`))); l != label {
			t.Errorf("the field %s is labelled %q", id, l)
		}
	}
	look(ctx, "sign-in")
	run(t, ctx, chromedp.SendKeys(css(`#email`), "ops@example.com"), chromedp.SendKeys(css(`#password`), password))
	submit(t, ctx, `form[action="/admin/signin"] button`)
	if h := get(t, ctx, chromedp.Text(css(`h1`))); h != "Overview" {
		t.Fatalf("signed in to %q", h)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("main figure.stack svg.bars").length`)); n != 3 {
		t.Errorf("the overview has %d charts, want 3 (a stacked chart a period, and the clicks)", n)
	}
	look(ctx, "overview")
	csv := get(t, ctx, chromedp.Evaluate[string](`fetch(document.querySelector('a[href*="table=hourly"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	if !strings.HasPrefix(csv, "Hour (UTC),2xx,3xx,4xx,429,5xx,All\r\n") || strings.Count(csv, "\n") != 49 {
		t.Errorf("the hourly CSV:\n%s", csv)
	}

	// Find the key and suspend it: the API refuses it within seconds.
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/keys?email="+email), chromedp.WaitVisible(css(`#keys-table`)))
	look(ctx, "keys")
	submit(t, ctx, `#keys-table a[href="/admin/keys/`+prefix+`"]`)
	look(ctx, "key")
	run(t, ctx, chromedp.SendKeys(css(`#suspend-reason`), "Testing the dashboard"))
	submit(t, ctx, `form[action$="/suspend"] button`)
	waitStatus(t, svc, key, http.StatusForbidden)
	// The suspension holds the account: the portal makes no key and says
	// how to appeal; the account's page offers to release the hold.
	run(t, dev, chromedp.Navigate(svc.base+"/developer/keys"), chromedp.WaitVisible(css(`#create-h`)))
	if s := get(t, dev, chromedp.Text(css(`section[aria-labelledby=create-h]`))); !strings.Contains(s, "suspended a key of this account") {
		t.Errorf("the held account's keys page says %q", s)
	}
	look(dev, "portal-keys-held")
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/accounts?q="+email), chromedp.WaitVisible(css(`#accounts-table`)))
	submit(t, ctx, `#accounts-table a[href^="/admin/accounts/"]`)
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('form[action$="/release"]').length`)); n != 1 {
		t.Errorf("the held account's page has %d release forms", n)
	}
	look(ctx, "account-held")
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/keys/"+prefix), chromedp.WaitVisible(css(`#resume-reason`)))
	run(t, ctx, chromedp.SendKeys(css(`#resume-reason`), "Done testing"))
	submit(t, ctx, `form[action$="/resume"] button`)
	waitStatus(t, svc, key, http.StatusOK)

	// Approve the tier request: the key is on pro, the portal says so.
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/tier-requests"), chromedp.WaitVisible(css(`form[action$="/approve"]`)))
	look(ctx, "tier-requests")
	submit(t, ctx, `form[action$="/approve"] button`)
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/keys/"+prefix), chromedp.WaitVisible(css(`dl.facts`)))
	if facts := get(t, ctx, chromedp.Text(css(`dl.facts`))); !strings.Contains(facts, "pro: 1,000 a minute") {
		t.Errorf("the approved key's facts: %s", facts)
	}
	run(t, dev, chromedp.Navigate(svc.base+"/developer/keys/"+prefix), chromedp.WaitVisible(css(`#tier`)))
	if s := get(t, dev, chromedp.Text(css(`#tier`))); !strings.Contains(s, "approved") || !strings.Contains(s, "the key is on the pro tier now") {
		t.Errorf("the portal shows the request as %q", s)
	}

	// The other pages, and the audit log with every action.
	for _, p := range []struct{ path, name string }{{"/admin/accounts", "accounts"}, {"/admin/abuse", "abuse"}, {"/admin/totp", "second-factor"}} {
		run(t, ctx, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)))
		look(ctx, p.name)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/audit"), chromedp.WaitVisible(css(`#audit-table`)))
	log := get(t, ctx, chromedp.Text(css(`#audit-table`)))
	for _, want := range []string{"user.create", "signin", "key.suspend", "Testing the dashboard", "key.resume", "tier_request.approve"} {
		if !strings.Contains(log, want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
	look(ctx, "audit")
	submit(t, ctx, `form[action="/admin/signout"] button`)
	run(t, ctx, chromedp.Navigate(svc.base+"/admin/audit"), chromedp.WaitVisible(css(`#password`)))
}

// waitStatus waits until the API answers key with want.
func waitStatus(t *testing.T, svc *service, key string, want int) {
	t.Helper()
	got := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = apiStatus(t, svc, key); got == want {
			return
		}
	}
	t.Errorf("the API answers the key with %d, want %d", got, want)
}
