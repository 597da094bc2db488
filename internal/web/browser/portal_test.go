package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// developerJourney does what a new developer does: opens /developer, asks
// for a sign-in link, reads it from the outbox (the service writes mail
// there without --smtp-url), signs in, creates a key, copies it, runs a
// playground request for /api/perfumes/match with two accords, sees a 200
// with rate-limit headers, rolls the key, sees the usage chart count the
// request, revokes the key and sees the API refuse it, and signs out.
// Every page on the way is checked with axe-core and photographed at 390
// and 1280 px.
func developerJourney(t *testing.T, svc *service) {
	ctx := browser(t)
	shoot := photographer(t, "portal")
	look := func(name string) { t.Helper(); shoot(ctx, name) }

	// The portal, and the sign-in form (the cookie banner answered first).
	run(t, ctx, chromedp.Navigate(svc.base+"/developer"), chromedp.Click(css(`section.consent button[value=reject]`)),
		chromedp.WaitNotPresent(css(`section.consent`)), chromedp.WaitVisible(css(`#email`)))
	if l := get(t, ctx, chromedp.Text(css(`label[for=email]`))); !strings.Contains(l, "Email") {
		t.Errorf("the address field is labelled %q", l)
	}
	look("developer")
	email := fmt.Sprintf("dev-%d@example.com", time.Now().UnixNano())
	run(t, ctx, chromedp.SendKeys(css(`#email`), email))
	submit(t, ctx, `form[action="/developer/signin/link"] button`)
	look("link-sent")

	// The link from the outbox: opening it asks to confirm (a mail scanner
	// that follows links signs nobody in), and Sign in signs in.
	link := signInLink(t, filepath.Join(filepath.Dir(svc.db), "outbox"), email)
	run(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(css(`form[action="/developer/signin"] button`)))
	look("confirm-sign-in")
	run(t, ctx, chromedp.Click(css(`form[action="/developer/signin"] button`)), chromedp.WaitVisible(css(`#key-name`)))
	if loc := get(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/developer/keys") {
		t.Errorf("signed in at %s", loc)
	}
	look("keys-empty")

	// The keys form: the origins box only while Browser key is chosen.
	if get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".keyform .origins").offsetParent !== null`)) {
		t.Error("the origins box shows for a server key")
	}
	run(t, ctx, chromedp.Click(css(`input[name=kind][value=browser]`)))
	if !get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".keyform .origins").offsetParent !== null`)) {
		t.Error("the origins box is hidden for a browser key")
	}
	run(t, ctx, chromedp.Click(css(`input[name=kind][value=server]`)))

	// Create a key: the form's POST redirects to the page that shows it
	// once, with a copy button that copies it.
	run(t, ctx, chromedp.SendKeys(css(`#key-name`), "My shop"), chromedp.Click(css(`form[action="/developer/keys"] button[type=submit]`)),
		chromedp.WaitVisible(css(`#new-key`)))
	newPage := get(t, ctx, chromedp.Location())
	key := get(t, ctx, chromedp.Text(css(`#new-key`)))
	if !regexp.MustCompile(`^fds_[0-9A-Za-z]{49}$`).MatchString(key) {
		t.Fatalf("the new key reads %q", key)
	}
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.Call(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: svc.base,
		}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, chromedp.WaitVisible(css(`button[data-copy=new-key]`)), chromedp.Click(css(`button[data-copy=new-key]`)))
	copied := get(t, ctx, chromedp.Evaluate[string](`navigator.clipboard.readText().catch(() => window.getSelection().toString())`, chromedp.EvalAwaitPromise))
	if copied != key {
		t.Errorf("Copy gave %q, want the key", copied)
	}
	look("key-created")
	prefix := key[:12]
	if !strings.HasSuffix(newPage, "/developer/keys/"+prefix+"/new") {
		t.Errorf("Create key led to %s", newPage)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href="/developer/playground#key=`+key+`"]').length`)); n != 1 {
		t.Errorf("the new key's page has %d links into the playground with the key", n)
	}

	// Back leaves the page without sending the form again: the account
	// still has one key; the key's page again says it was shown already.
	// (history.back(): the page may come from the back-forward cache, with
	// no load event to wait for.)
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`history.back()`))
	waitFor(t, ctx, func(loc string) bool { return strings.HasSuffix(loc, "/developer/keys") })
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/keys"), chromedp.WaitVisible(css(`#key-name`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.keys tbody tr").length`)); n != 1 {
		t.Errorf("after Back the account has %d keys, want 1", n)
	}
	run(t, ctx, chromedp.Navigate(newPage), chromedp.WaitVisible(css(`h1`)))
	if h := get(t, ctx, chromedp.Text(css(`h1`))); h != "This key was shown already" || get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#new-key").length`)) != 0 {
		t.Errorf("the new key's page visited again: %q", h)
	}
	look("key-shown-already")

	// The playground, from the page's link: the key arrives in the
	// fragment; match with two accords answers 200 with rate-limit headers.
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/playground#key="+key), chromedp.WaitVisible(css(`#pg-key-box`)),
		chromedp.Click(css(`#pg-key-offer-use`)), chromedp.WaitNotPresent(css(`#pg-key-offer`)))
	if v := get(t, ctx, chromedp.Value(css(`#pg-key`))); v != key {
		t.Errorf("the playground's key field holds %q", v)
	}
	// The key list names the key this browser holds as it is; once the
	// browser forgets it, the key says to paste it.
	option := `document.querySelector('#pg-key-choice option[value="` + prefix + `"]').textContent`
	if o := get(t, ctx, chromedp.Evaluate[string](option)); !strings.HasPrefix(o, "My shop · "+prefix) || strings.Contains(o, "paste it") {
		t.Errorf("the key list offers the key held as %q", o)
	}
	run(t, ctx, chromedp.Click(css(`#pg-key-forget`)))
	if o := get(t, ctx, chromedp.Evaluate[string](option)); !strings.HasSuffix(o, "paste it") {
		t.Errorf("the key list offers a key not held as %q", o)
	}
	run(t, ctx, chromedp.SendKeys(css(`#pg-key`), key), chromedp.Evaluate[chromedp.Void](`document.getElementById("pg-key").dispatchEvent(new Event("change"))`))
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const d = document.getElementById("ep-matchPerfumes");
		d.open = true;
		d.dispatchEvent(new Event("toggle"));
		const f = d.querySelector('[name="accords"]');
		f.value = "woody,citrus";
		f.dispatchEvent(new Event("input", {bubbles: true}));
	})()`), chromedp.Click(css(`#ep-matchPerfumes .pg-send`)), chromedp.WaitVisible(css(`#pg-response .json`)))
	if s := get(t, ctx, chromedp.Text(css(`#pg-response .pg-meta`))); !strings.Contains(s, "200") {
		t.Errorf("the playground's match answered %q", s)
	}
	marked := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#pg-response dt.rl")].map(d => d.textContent.toLowerCase()).join(",")`))
	if !strings.Contains(marked, "x-ratelimit-remaining") {
		t.Errorf("rate-limit headers marked: %q", marked)
	}
	look("playground-match")

	// The key's page counts the request; roll the key with an hour's grace.
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/keys/"+prefix), chromedp.WaitVisible(css(`#usage-h`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("section[aria-labelledby=usage-h] table tbody tr")].filter(r => r.textContent.includes("perfumes.match")).length`)); n != 1 {
		t.Errorf("the key's page shows no perfumes.match request (rows: %d)", n)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("section[aria-labelledby=usage-h] figure.chart.axis svg.bars").length`)); n != 1 {
		t.Errorf("the key's page has %d usage charts", n)
	}
	// The chart: its y axis's values, the bar of one request visible
	// under a daily limit of 1,000, the plot as wide as its column.
	if ys := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#usage svg.yaxis text")].map(t => t.textContent).join(" ")`)); ys != "0 1 2 3 4" {
		t.Errorf("the usage chart's y axis reads %q", ys)
	}
	if h := get(t, ctx, chromedp.Evaluate[float64](`Math.max(...[...document.querySelectorAll("#usage svg.bars rect")].map(r => r.getBoundingClientRect().height))`)); h < 20 {
		t.Errorf("the usage chart's tallest bar is %.1f px high", h)
	}
	if share := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("#usage .plot").getBoundingClientRect().width / document.querySelector("section[aria-labelledby=usage-h]").getBoundingClientRect().width`)); share < 0.6 {
		t.Errorf("the usage chart takes %.2f of its section's width", share)
	}
	look("key-page")
	run(t, ctx, chromedp.SetValue(css(`#grace`), "1h"), chromedp.Click(css(`form[action$="/roll"] button`)), chromedp.WaitVisible(css(`#new-key`)))
	rolled := get(t, ctx, chromedp.Text(css(`#new-key`)))
	if rolled == key || !strings.HasPrefix(rolled, "fds_") {
		t.Fatalf("the rolled key reads %q", rolled)
	}
	look("key-rolled")
	if code := apiStatus(t, svc, key); code != http.StatusOK {
		t.Errorf("the old key in its grace period: %d, want 200", code)
	}

	// Revoke the new key (confirmed), and the API refuses it.
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/keys/"+rolled[:12]+"/revoke"), chromedp.WaitVisible(css(`form[action$="/revoke"] button`)))
	look("revoke-confirm")
	submit(t, ctx, `form[action$="/revoke"] button`)
	look("key-revoked")
	refused := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if apiStatus(t, svc, rolled) == http.StatusUnauthorized {
			refused = true
			break
		}
	}
	if !refused {
		t.Error("the API still takes the revoked key")
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/keys"), chromedp.WaitVisible(css(`#key-name`)))
	look("keys-list")
	// At a phone's width every key is a card whose every field shows whole.
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
	if cut := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.keys td")].filter(td => {
		const r = td.getBoundingClientRect();
		return r.width === 0 || r.right > window.innerWidth || td.scrollWidth > td.clientWidth + 1;
	}).map(td => td.textContent)`)); len(cut) > 0 {
		t.Errorf("at 390 px the keys table cuts %q", cut)
	}
	if disp := get(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("table.keys tr")).display`)); disp != "block" {
		t.Errorf("at 390 px a key's row is %s, not a card", disp)
	}
	run(t, ctx, chromedp.EmulateViewport(1280, 900))

	// Sign out: the session cookie goes, and the keys page wants a sign-in.
	run(t, ctx, chromedp.Click(css(`form[action="/developer/signout"] button`)), chromedp.WaitVisible(css(`#email`)))
	for name := range cookies(t, ctx) {
		if strings.Contains(name, "session") {
			t.Errorf("cookie %s kept after signing out", name)
		}
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/keys"), chromedp.WaitVisible(css(`#email`)))
	look("signed-out")
}

// submit clicks the button sel and waits for the next page: the page
// shown is marked first, and the mark is gone once another has loaded.
func submit(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.body.dataset.left = "yes"`), chromedp.Click(css(sel)),
		chromedp.WaitReady(css(`body:not([data-left]) footer`)))
}

// photographer returns look: it runs axe-core on the page shown in ctx
// and saves it, numbered by step under the prefix, at 390 and 1280 px,
// where nothing may scroll sideways; the tab is left at 1280 px.
func photographer(t *testing.T, prefix string) func(ctx context.Context, name string) {
	axe := axeSource(t)
	shots := screenshotDir(t)
	step := 0
	return func(ctx context.Context, name string) {
		t.Helper()
		step++
		axeCheck(t, ctx, axe, name)
		for _, width := range []int64{390, 1280} {
			viewport := chromedp.EmulateViewport(width, 844)
			if width < 600 {
				viewport = chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait)
			}
			run(t, ctx, viewport)
			if w := get(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`)); w > 0 {
				t.Errorf("%s at %d px scrolls sideways by %d px", name, width, w)
			}
			file := filepath.Join(shots, fmt.Sprintf("%s-%02d-%s-%d.png", prefix, step, name, width))
			if err := os.WriteFile(file, get(t, ctx, chromedp.FullScreenshot(100)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run(t, ctx, chromedp.EmulateViewport(1280, 900))
	}
}

// signInLink reads the newest message to addr in the outbox and returns
// its sign-in link, which must stand whole on one line of the raw .eml
// file (no quoted-printable soft breaks), as a person copies it.
func signInLink(t *testing.T, outbox, addr string) string {
	t.Helper()
	var files []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		files, _ = filepath.Glob(filepath.Join(outbox, "*.eml"))
		if len(files) > 0 {
			break
		}
	}
	sort.Strings(files)
	linkRE := regexp.MustCompile(`https?://\S+/developer/signin\?token=[A-Za-z0-9_-]+`)
	for i := len(files) - 1; i >= 0; i-- {
		raw, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		m, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", files[i], err)
		}
		if to, _ := mail.ParseAddress(m.Header.Get("To")); to == nil || to.Address != addr {
			continue
		}
		body, err := io.ReadAll(m.Body)
		if err != nil {
			t.Fatal(err)
		}
		if cte := m.Header.Get("Content-Transfer-Encoding"); cte != "7bit" {
			t.Errorf("%s: Content-Transfer-Encoding %q; want 7bit, the link as written", files[i], cte)
		}
		for _, line := range strings.Split(string(body), "\r\n") {
			if l := linkRE.FindString(line); l != "" && l == strings.TrimSpace(line) {
				return l
			}
		}
		t.Fatalf("the message to %s has no sign-in link alone on a line:\n%s", addr, body)
	}
	t.Fatalf("no message to %s in %s (%d files)", addr, outbox, len(files))
	return ""
}

// apiStatus is the API's status for a request with key.
func apiStatus(t *testing.T, svc *service, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", svc.base+"/api/perfumes?limit=1", nil)
	req.Header.Set("X-API-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// axeCheck runs axe-core on the page shown and fails on serious or
// critical violations.
func axeCheck(t *testing.T, ctx context.Context, axe, name string) {
	t.Helper()
	run(t, ctx, chromedp.WaitReady(css(`footer`)), chromedp.Evaluate[chromedp.Void](axe))
	raw := get(t, ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}))))`, chromedp.EvalAwaitPromise))
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatalf("%s: axe answered %q: %v", name, raw, err)
	}
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: %s %s: %s at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		} else {
			t.Logf("%s: %s %s: %s at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
}

// screenshotDir is FRAGRANCE_SCREENSHOTS, or a new temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FRAGRANCE_SCREENSHOTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "fragrance-screenshots-"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
