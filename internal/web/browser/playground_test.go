package browser_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// playground drives /developer/playground: a new key arrives in the
// address's fragment (as the portal links it), leaves the address at once
// and is neither used nor kept until the visitor says so in the page (a
// link anyone can send must not plant a key); Send asks the API from the browser and shows the status, the
// rate-limit headers and the JSON; the key is kept for the tab only
// without consent to preferences; the code the script writes as the form
// changes is the code the page's Go writes for the same address; and
// without JavaScript the page writes the code of the submitted form.
func playground(t *testing.T, svc *service) {
	out, err := exec.Command(svc.bin, "keys", "create", "--db", svc.db, "--tier", "free", "--email", "play@example.com").Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]
	ctx := browser(t)
	look := photographer(t, "playground")
	held := func() string {
		return get(t, ctx, chromedp.Evaluate[string](`sessionStorage.getItem("fds-playground-keys") + "|" + localStorage.getItem("fds-playground-keys")`))
	}
	// A key planted by someone else's link: asked about, and refused.
	planted := "fds_planted0_" + strings.Repeat("x", 30)
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/playground#key="+url.QueryEscape(planted)), chromedp.WaitVisible(css(`#pg-key-offer`)))
	if v := get(t, ctx, chromedp.Value(css(`#pg-key`))); v != "" || strings.Contains(held(), planted) {
		t.Errorf("before the visitor answered, the linked key was used (%q) or kept (%q)", v, held())
	}
	if q := get(t, ctx, chromedp.Text(css(`#pg-key-offer`))); !strings.Contains(q, planted[:12]) {
		t.Errorf("the question does not name the key: %q", q)
	}
	look(ctx, "key-offer")
	run(t, ctx, chromedp.Click(css(`#pg-key-offer-no`)), chromedp.WaitNotPresent(css(`#pg-key-offer`)))
	if v := get(t, ctx, chromedp.Value(css(`#pg-key`))); v != "" || strings.Contains(held(), planted) {
		t.Errorf("a refused key was used (%q) or kept (%q)", v, held())
	}

	// The developer's own new key, from the portal's link: used and kept
	// once accepted.
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/playground?endpoint=getPerfume&slug=dior-sauvage#key="+url.QueryEscape(key)),
		chromedp.WaitVisible(css(`#pg-key-box`)), chromedp.WaitVisible(css(`#pg-key-offer`)))
	if loc := get(t, ctx, chromedp.Location()); strings.Contains(loc, "key=") || strings.Contains(loc, key) {
		t.Errorf("the key stayed in the address: %s", loc)
	}
	if strings.Contains(held(), key) {
		t.Errorf("the key was kept before the visitor accepted it: %q", held())
	}
	run(t, ctx, chromedp.Click(css(`#pg-key-offer-use`)), chromedp.WaitNotPresent(css(`#pg-key-offer`)))
	if v := get(t, ctx, chromedp.Value(css(`#pg-key`))); v != key {
		t.Errorf("the key field holds %q", v)
	}
	if h := held(); !strings.Contains(h, key+`"]|null`) {
		t.Errorf("without consent to preferences the key is kept as %q", h)
	}

	// Send: the answer, its headers and its body.
	run(t, ctx, chromedp.Click(css(`#ep-getPerfume .pg-send`)), chromedp.WaitVisible(css(`#pg-response .json`)))
	if s := get(t, ctx, chromedp.Text(css(`#pg-response .pg-meta`))); !strings.Contains(s, "200") || !strings.Contains(s, "ms") {
		t.Errorf("status line %q", s)
	}
	marked := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#pg-response dt.rl")].map(d => d.textContent.toLowerCase()).join(",")`))
	for _, h := range []string{"ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
		if !strings.Contains(","+marked+",", ","+h+",") {
			t.Errorf("header %s not marked (marked: %s)", h, marked)
		}
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#pg-response .json .s")].filter(s => s.textContent === '"Sauvage"').length`)); n < 1 {
		t.Error("the body does not show the name as a JSON string")
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#pg-response .json details").length`)); n < 5 {
		t.Errorf("%d folds in the body", n)
	}
	// The answer's first level unfolded, what is deeper folded.
	if open := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#pg-response .json details")].map(d => d.open ? "o" : "c").join("")`)); !strings.HasPrefix(open, "oc") || strings.Count(open, "o") != 1 {
		t.Errorf("the answer's folds (o open, c closed): %s", open)
	}
	// The raw view, and Copy the answer copies it.
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.Call(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: svc.base,
		}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#pg-response .pg-bodybar button[aria-pressed]").click()`))
	if shown := get(t, ctx, chromedp.Evaluate[string](`["#pg-response .json", "#pg-response pre.pg-raw"].map(s => document.querySelector(s).offsetParent !== null).join(" ")`)); shown != "false true" {
		t.Errorf("after Raw JSON the tree and the raw text show: %s", shown)
	}
	raw := get(t, ctx, chromedp.Text(css(`#pg-raw`)))
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#pg-response button[data-copy=pg-raw]").click()`))
	copied := get(t, ctx, chromedp.Evaluate[string](`navigator.clipboard.readText().catch(() => window.getSelection().toString())`, chromedp.EvalAwaitPromise))
	var answer struct{ Slug string }
	if err := json.Unmarshal([]byte(copied), &answer); err != nil || answer.Slug != "dior-sauvage" || copied != raw {
		t.Errorf("Copy the answer gave %.80q (%v)", copied, err)
	}
	// From 1024 px the request and the answer stand side by side; on a
	// phone, one under the other.
	for _, width := range []int64{1024, 390} {
		run(t, ctx, chromedp.EmulateViewport(width, 900))
		side := get(t, ctx, chromedp.Evaluate[bool](`(() => {
			const f = document.querySelector("#ep-getPerfume form.pg-form").getBoundingClientRect();
			const o = document.getElementById("pg-out").getBoundingClientRect();
			return o.left >= f.right && o.top < f.bottom;
		})()`))
		if side != (width >= 1024) {
			t.Errorf("at %d px the request and the answer side by side: %v", width, side)
		}
	}
	run(t, ctx, chromedp.EmulateViewport(1280, 900))
	// Placeholders say they are hints, never values.
	if bad := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#playground input[placeholder]")].map(i => i.placeholder).filter(p => !/^(e\.g\. |default: )/.test(p))`)); len(bad) > 0 {
		t.Errorf("placeholders that read as values: %q", bad)
	}

	// The script's code is the page's: change the form, then ask the
	// server for the address the script wrote.
	sameCode := func(what, endpoint, set string) {
		t.Helper()
		run(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => {
			const d = document.getElementById("ep-`+endpoint+`");
			d.open = true;
			d.dispatchEvent(new Event("toggle"));
			const set = `+set+`;
			for (const [name, value] of Object.entries(set)) {
				const f = d.querySelector('[name="' + name + '"]');
				f.value = value;
				f.dispatchEvent(new Event("input", {bubbles: true}));
			}
		})()`))
		loc := get(t, ctx, chromedp.Location())
		if !strings.Contains(loc, "endpoint="+endpoint) {
			t.Fatalf("%s: the address is %s", what, loc)
		}
		res, err := http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, lang := range []string{"curl", "js", "python", "go", "pyclient", "tsclient"} {
			m := regexp.MustCompile(`<code id="code-` + lang + `" data-lang="` + lang + `">([^<]*)</code>`).FindSubmatch(page)
			js := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("code-`+lang+`").textContent`))
			if m == nil || html.UnescapeString(string(m[1])) != js {
				t.Errorf("%s %s: the script wrote\n%s\nthe page writes\n%s", what, lang, js, m)
			}
		}
	}
	sameCode("search", "siteSearch", `{q: "rose & oud's (x)*! é", limit: "3"}`)
	sameCode("match", "matchPerfumes", `{accords: "woody:40,vanilla", gender: "feminine", notes: "Tonka Bean"}`)
	sameCode("image", "getImage", `{id: "31861", "If-None-Match": "\"it's\""}`)
	sameCode("dupes", "dupePerfumes", `{slug: "creed aventus/x", limit: ""}`)

	// A keyless endpoint answers without a key; the key survives a reload
	// of the tab.
	run(t, ctx, chromedp.Navigate(svc.base+"/developer/playground?endpoint=siteSearch&q=sauvage"), chromedp.WaitVisible(css(`#pg-key-box`)),
		chromedp.Click(css(`#ep-siteSearch .pg-send`)), chromedp.WaitVisible(css(`#pg-response .json`)))
	if v := get(t, ctx, chromedp.Value(css(`#pg-key`))); v != key {
		t.Errorf("after a reload the key field holds %q", v)
	}
	// Forget: nothing kept, and Send asks for a key.
	run(t, ctx, chromedp.Click(css(`#pg-key-forget`)), chromedp.Navigate(svc.base+"/developer/playground?endpoint=listPerfumes"),
		chromedp.WaitVisible(css(`#pg-key-box`)), chromedp.Click(css(`#ep-listPerfumes .pg-send`)), chromedp.WaitVisible(css(`#pg-response .notice`)))
	if s := get(t, ctx, chromedp.Text(css(`#pg-response .notice`))); !strings.Contains(s, "Paste your API key") {
		t.Errorf("Send without a key: %q", s)
	}

	// Without JavaScript: the form submits to the page, which writes the
	// code.
	noJS := browser(t)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	// The cookie banner is answered first (a form, without JavaScript too):
	// fixed at the bottom of the window, it could be where the button is.
	run(t, noJS, chromedp.Navigate(svc.base+"/developer/playground?endpoint=similarPerfumes"),
		chromedp.Click(css(`section.consent button[value=reject]`)), chromedp.WaitNotPresent(css(`section.consent`)),
		chromedp.WaitVisible(css(`#f-similarPerfumes-slug`)),
		chromedp.SendKeys(css(`#f-similarPerfumes-slug`), "dior-sauvage"), chromedp.Click(css(`#ep-similarPerfumes .pg-show`)))
	waitFor(t, noJS, func(loc string) bool { return strings.Contains(loc, "slug=dior-sauvage") })
	// The address changes before the new page's nodes exist: ask until the
	// new page answers.
	var c string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v, err := chromedp.Run(noJS, chromedp.Text(css(`#code-curl`))); err == nil {
			if c = v; strings.HasSuffix(c, "/api/perfumes/dior-sauvage/similar'") {
				break
			}
		}
	}
	if !strings.HasSuffix(c, "/api/perfumes/dior-sauvage/similar'") {
		t.Errorf("without JavaScript the curl is %q", c)
	}
}

// waitFor waits until the tab's address satisfies ok. An address asked
// while the tab navigates may not answer: it is asked again.
func waitFor(t *testing.T, ctx context.Context, ok func(string) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if loc, err := chromedp.Run(ctx, chromedp.Location()); err == nil && ok(loc) {
			return
		}
	}
	t.Fatalf("the tab stayed at %s", get(t, ctx, chromedp.Location()))
}
