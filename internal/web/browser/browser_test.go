// Package browser_test drives the real binary with a real browser
// (Chromium, through chromedp): search from the home page, a perfume page,
// the cookie choices with and without JavaScript, the cookies before any
// choice, the playground, axe-core on every kind of page, and screenshots
// at a phone's and a desktop's width. It runs when FRAGRANCE_TEST_BROWSER=1 and is skipped
// otherwise; .ci/run runs it.
//
//	FRAGRANCE_TEST_BROWSER=1 go test ./internal/web/browser -v
//
// Environment: FRAGRANCE_CHROMIUM (default /usr/bin/chromium, else
// chromium on PATH), FRAGRANCE_AXE_JS (axe.min.js; default: npm installs
// axe-core into a temporary directory), FRAGRANCE_SCREENSHOTS (where the
// screenshots go; default a new temporary directory, logged).
package browser_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/fragrance-data/fragrance/internal/testbin"
)

// service is the real binary, started on a free port over a new database
// filled with the bundled catalogue.
type service struct {
	base    string
	cmd     *exec.Cmd
	bin, db string // the binary and its database
}

func startService(t *testing.T) *service {
	t.Helper()
	dir := t.TempDir()
	bin := testbin.Build(t, dir)
	snippet := filepath.Join(dir, "analytics.html")
	// A stand-in for an operator's analytics: it runs only with the page's
	// nonce, and only after consent to analytics.
	if err := os.WriteFile(snippet, []byte(`<script>window.analyticsRan = true;</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "site.db")
	base, cmd := testbin.Serve(t, bin, "--db", db, "--analytics-snippet", snippet, "--site-search-limit", "1000", "--page-limit", "100000", "--admin-allow", "127.0.0.1/32")
	return &service{base: base, cmd: cmd, bin: bin, db: db}
}

func chromiumPath(t *testing.T) string {
	if p := os.Getenv("FRAGRANCE_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Fatal("no Chromium: set FRAGRANCE_CHROMIUM or install Debian's chromium")
	return ""
}

// browser starts a headless Chromium and returns a context for a tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// run runs steps in the tab of ctx, failing the test on an error.
func run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs an action that answers a value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// css is a CSS selector.
func css(s string) chromedp.CSS { return chromedp.CSS(s) }

// cookies returns the browser's cookies for the page shown, by name.
func cookies(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range res.Cookies {
		out[c.Name] = c.Value
	}
	return out
}

func bannerShown(t *testing.T, ctx context.Context) bool {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.consent").length`)) > 0
}

func TestBrowser(t *testing.T) {
	if os.Getenv("FRAGRANCE_TEST_BROWSER") != "1" {
		t.Skip("set FRAGRANCE_TEST_BROWSER=1 to drive the website with Chromium")
	}
	svc := startService(t)
	t.Run("SearchFromHome", func(t *testing.T) { searchFromHome(t, svc) })
	t.Run("RejectCookies", func(t *testing.T) { rejectCookies(t, svc) })
	t.Run("AcceptCookies", func(t *testing.T) { acceptCookies(t, svc) })
	t.Run("RejectWithoutJavaScript", func(t *testing.T) { rejectWithoutJS(t, svc) })
	t.Run("Playground", func(t *testing.T) { playground(t, svc) })
	t.Run("DeveloperJourney", func(t *testing.T) { developerJourney(t, svc) })
	t.Run("DocsPages", func(t *testing.T) { docsPages(t, svc) })
	t.Run("AdminJourney", func(t *testing.T) { adminJourney(t, svc) })
	t.Run("AdminPages", func(t *testing.T) { adminPages(t, svc) })
	t.Run("SitePages", func(t *testing.T) { sitePages(t, svc) })
	t.Run("Discovery", func(t *testing.T) { siteDiscovery(t, svc) })
	t.Run("Accessibility", func(t *testing.T) { accessibility(t, svc) })
	t.Run("Screenshots", func(t *testing.T) { screenshots(t, svc) })
}

// searchFromHome types into the home page's search box (suggestions
// appear as you type), submits it, and opens a perfume from the results.
func searchFromHome(t *testing.T, svc *service) {
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.WaitVisible(css(`#q`)))
	if cs := cookies(t, ctx); len(cs) != 0 {
		t.Errorf("cookies before any choice: %v", cs)
	}
	run(t, ctx, chromedp.SendKeys(css(`#q`), "sauvage"), chromedp.WaitVisible(css(`#suggestions a`)))
	if s := get(t, ctx, chromedp.Text(css(`#suggestions a`))); !strings.Contains(s, "Sauvage") {
		t.Errorf("first suggestion %q", s)
	}
	run(t, ctx, chromedp.Submit(css(`#q`)), chromedp.WaitVisible(css(`ul.results`)))
	if url := get(t, ctx, chromedp.Location()); !strings.HasSuffix(url, "/search?q=sauvage") {
		t.Errorf("search went to %s", url)
	}
	run(t, ctx, chromedp.Click(css(`ul.results a`)), chromedp.WaitVisible(css(`.product h1`)))
	h1 := get(t, ctx, chromedp.Text(css(`h1`)))
	title := get(t, ctx, chromedp.Title())
	url := get(t, ctx, chromedp.Location())
	if !strings.Contains(url, "/perfumes/") || !strings.Contains(title, h1) || !strings.Contains(title, " by ") {
		t.Errorf("perfume page %s: h1 %q, title %q", url, h1, title)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg rect").length`)); n < 6 {
		t.Errorf("%d chart bars", n)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('script[type="application/ld+json"]').length`)); n < 1 {
		t.Error("no structured data")
	}
	if cs := cookies(t, ctx); len(cs) != 0 {
		t.Errorf("cookies after browsing without a choice: %v", cs)
	}
}

var consentValue = regexp.MustCompile(`^necessary(\.preferences)?(\.analytics)?:\d{4}-\d\d-\d\d$`)

func analyticsRan(t *testing.T, ctx context.Context) bool {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[bool](`window.analyticsRan === true`))
}

// rejectCookies: "Reject all" leaves only the consent record, and the
// banner goes.
func rejectCookies(t *testing.T, svc *service) {
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/creed-aventus"), chromedp.WaitVisible(css(`section.consent`)))
	run(t, ctx, chromedp.Click(css(`section.consent button[value=reject]`)), chromedp.WaitNotPresent(css(`section.consent`)),
		chromedp.WaitVisible(css(`.product h1`)))
	cs := cookies(t, ctx)
	if len(cs) != 1 || !consentValue.MatchString(cs["consent"]) || strings.Contains(cs["consent"], "analytics") {
		t.Errorf("after Reject all: cookies %v", cs)
	}
	if url := get(t, ctx, chromedp.Location()); !strings.HasSuffix(url, "/perfumes/creed-aventus") {
		t.Errorf("after Reject all: at %s", url)
	}
	if analyticsRan(t, ctx) {
		t.Error("the analytics snippet ran after Reject all")
	}
}

// acceptCookies: "Accept all" records every category; the analytics
// snippet then runs (with the page's nonce); the footer's "Cookie
// settings" change the choice again.
func acceptCookies(t *testing.T, svc *service) {
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.WaitVisible(css(`section.consent`)))
	if analyticsRan(t, ctx) {
		t.Error("the analytics snippet ran before consent")
	}
	run(t, ctx, chromedp.Click(css(`section.consent button[value=accept]`)), chromedp.WaitNotPresent(css(`section.consent`)),
		chromedp.WaitVisible(css(`#q`)))
	cs := cookies(t, ctx)
	if len(cs) != 1 || !strings.HasPrefix(cs["consent"], "necessary.preferences.analytics:") {
		t.Errorf("after Accept all: cookies %v", cs)
	}
	if !analyticsRan(t, ctx) {
		t.Error("after Accept all the analytics snippet did not run")
	}
	run(t, ctx,
		chromedp.Click(css(`footer a[href="/privacy#cookie-settings"]`)),
		chromedp.WaitVisible(css(`#cookie-settings`)),
		chromedp.Click(css(`form.settings button[value=reject]`)),
	)
	// The form posts and comes back to /privacy: wait for the new choice.
	cs = nil
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cs = cookies(t, ctx); consentValue.MatchString(cs["consent"]) && !strings.Contains(cs["consent"], "analytics") {
			break
		}
	}
	if strings.Contains(cs["consent"], "analytics") || !consentValue.MatchString(cs["consent"]) {
		t.Errorf("after changing the choice: %v", cs)
	}
	run(t, ctx, chromedp.WaitVisible(css(`#cookie-settings`)))
	if strings.Contains(get(t, ctx, chromedp.Text(css(`.notice`))), "analytics") {
		t.Error("the settings still show analytics after Reject all")
	}
}

// rejectWithoutJS: the banner's Reject all works with JavaScript off.
func rejectWithoutJS(t *testing.T, svc *service) {
	ctx := browser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/brands"), chromedp.WaitVisible(css(`section.consent`)))
	if role := get(t, ctx, chromedp.AttributeValue(css(`#top-q`), "role")); role.Exists {
		t.Errorf("scripts ran (the search box became a %s)", role.Value)
	}
	run(t, ctx, chromedp.Click(css(`section.consent button[value=reject]`)), chromedp.WaitNotPresent(css(`section.consent`)))
	cs := cookies(t, ctx)
	if len(cs) != 1 || !consentValue.MatchString(cs["consent"]) || strings.Contains(cs["consent"], "preferences") {
		t.Errorf("after Reject all without JavaScript: cookies %v", cs)
	}
	if url := get(t, ctx, chromedp.Location()); !strings.HasSuffix(url, "/brands") {
		t.Errorf("after Reject all without JavaScript: at %s", url)
	}
}

// pageKinds are a page of every kind, for axe and the screenshots.
var pageKinds = []struct{ name, path string }{
	{"home", "/"},
	{"search", "/search?q=rose"},
	{"perfume", "/perfumes/dior-sauvage"},
	{"brands", "/brands"},
	{"brand", "/brands/chanel"},
	{"perfumers", "/perfumers"},
	{"perfumer", "/perfumers/francois-demachy"},
	{"notes", "/notes"},
	{"note", "/notes/vanilla"},
	{"accord", "/accords/woody"},
	{"privacy", "/privacy"},
	{"developer", "/developer"},
	{"docs", "/docs"},
	{"reference", "/docs/reference"},
	{"playground", "/developer/playground?endpoint=matchPerfumes&accords=woody:40&gender=nobody"},
	{"pricing", "/pricing"},
	{"changelog", "/changelog"},
	{"errors", "/docs/errors"},
	{"not-found", "/no/such/page"},
}

// axeSource is axe-core's axe.min.js: FRAGRANCE_AXE_JS, or installed from
// npm into a temporary directory (never into the repository).
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("FRAGRANCE_AXE_JS")
	if path == "" {
		dir := filepath.Join(os.TempDir(), "fragrance-axe")
		path = filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
		if _, err := os.Stat(path); err != nil {
			cmd := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir, "axe-core")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm install axe-core: %v\n%s (or set FRAGRANCE_AXE_JS)", err, out)
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// accessibility runs axe-core on every kind of page, with the cookie
// banner up and after a choice, and fails on serious or critical
// violations.
func accessibility(t *testing.T, svc *service) {
	axe := axeSource(t)
	ctx := browser(t)
	check := func(name, path string) {
		t.Helper()
		run(t, ctx, chromedp.Navigate(svc.base+path))
		axeCheck(t, ctx, axe, name+" ("+path+")")
	}
	for _, p := range pageKinds {
		check(p.name+" with the banner", p.path)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.Click(css(`section.consent button[value=reject]`)),
		chromedp.WaitNotPresent(css(`section.consent`)))
	for _, p := range pageKinds {
		check(p.name, p.path)
	}
}

// screenshots saves every kind of page at 390 and 1280 px wide (the first
// screen and the full page; the banner up on the home page, the choice
// made on the others),
// and checks that nothing scrolls sideways at 390.
func screenshots(t *testing.T, svc *service) {
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	for _, width := range []int64{390, 1280} {
		ctx := browser(t)
		viewport := chromedp.EmulateViewport(width, 844)
		if width < 600 {
			viewport = chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		run(t, ctx, viewport)
		for i, p := range pageKinds {
			if i == 1 { // the first shows the banner; then the visitor chose
				run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.Click(css(`section.consent button[value=reject]`)),
					chromedp.WaitNotPresent(css(`section.consent`)))
			}
			run(t, ctx, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)),
				chromedp.Evaluate[chromedp.Void](`Promise.all([...document.images].map(i => {
					i.loading = "eager";
					return i.complete ? 0 : new Promise(r => { i.onload = i.onerror = r; });
				}))`, chromedp.EvalAwaitPromise))
			// Every picture shows something: a bottle not drawn yet beyond
			// this client's drawings comes as the plain placeholder bottle.
			if broken := get(t, ctx, chromedp.Evaluate[[]string](`[...document.images].filter(i => i.naturalWidth === 0).map(i => i.src)`)); len(broken) > 0 {
				t.Errorf("%s at %d px: broken images %v", p.name, width, broken)
			}
			scrollW := get(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
			innerW := get(t, ctx, chromedp.Evaluate[int64](`window.innerWidth`))
			if scrollW > innerW {
				t.Errorf("%s at %d px scrolls sideways: content %d px wide", p.name, width, scrollW)
			}
			// The first screen as a visitor sees it, and the whole page.
			for suffix, shot := range map[string]chromedp.Action[[]byte]{"-screen": chromedp.CaptureScreenshot(), "": chromedp.FullScreenshot(100)} {
				file := filepath.Join(dir, fmt.Sprintf("%s-%d%s.png", p.name, width, suffix))
				if err := os.WriteFile(file, get(t, ctx, shot), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
