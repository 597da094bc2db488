package browser_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// sitePages is what a visitor of the public site notices first, at a
// phone's size (390×844) and a desktop's width: the icons, the cookie
// banner's size and the place a choice keeps, the header's Menu, no page
// wider than the phone and no table cut, the perfume page's readings, the
// lists' indexes and filters, the search rows; then axe-core and the
// screenshots of the pages the shared list of page kinds lacks.
func sitePages(t *testing.T, svc *service) {
	t.Run("Icons", func(t *testing.T) { siteIcons(t, svc) })
	t.Run("Banner", func(t *testing.T) { siteBanner(t, svc) })
	t.Run("Menu", func(t *testing.T) { siteMenu(t, svc) })
	t.Run("PhoneLayout", func(t *testing.T) { sitePhoneLayout(t, svc) })
	t.Run("PerfumePage", func(t *testing.T) { sitePerfumePage(t, svc) })
	t.Run("Lists", func(t *testing.T) { siteLists(t, svc) })
	t.Run("Search", func(t *testing.T) { siteSearch(t, svc) })
	t.Run("Filters", func(t *testing.T) { siteFilters(t, svc) })
	t.Run("Photos", func(t *testing.T) { sitePhotos(t, svc) })
}

// sitePageKinds are a page of every kind of the public site, and the
// variants the issue names (a list's letter, group and filter, a search
// without results, a perfume without similar perfumes).
var sitePageKinds = []struct{ name, path string }{
	{"home", "/"},
	{"search", "/search?q=rose"},
	{"search-empty", "/search?q=zzqxv"},
	{"perfume", "/perfumes/dior-sauvage"},
	{"perfume-no-similar", "/perfumes/giorgio-armani-armani-code-elixir"},
	{"brands", "/brands"},
	{"brands-letter", "/brands?letter=c"},
	{"brands-filter", "/brands?q=maison"},
	{"brand", "/brands/chanel"},
	{"perfumers", "/perfumers"},
	{"perfumer", "/perfumers/francois-demachy"},
	{"notes", "/notes"},
	{"notes-group", "/notes?group=flowers"},
	{"note", "/notes/vanilla"},
	{"accords", "/accords"},
	{"accord", "/accords/woody"},
	{"privacy", "/privacy"},
	{"not-found", "/no/such/page"},
}

// phone emulates a phone's screen, 390×844, in the tab of ctx.
func phone(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
}

// chosen makes the cookie choice (Reject all) in the tab of ctx, so that
// the banner is gone from the pages it shows next.
func chosen(t *testing.T, ctx context.Context, svc *service) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(svc.base+"/privacy"), chromedp.Click(css(`section.consent button[value=reject]`)),
		chromedp.WaitNotPresent(css(`section.consent`)))
}

// visible reports whether the first element of sel is drawn (not in a
// closed details element, not hidden).
func visible(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(e => !!e && e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}))(document.querySelector(%q))`, sel)))
}

// siteIcons: the icon every page links and /favicon.ico answer, and
// pages carry the theme colour.
func siteIcons(t *testing.T, svc *service) {
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.WaitReady(css(`footer`)))
	got := get(t, ctx, chromedp.Evaluate[[]string](`Promise.all(["/favicon.ico", document.querySelector('link[rel=icon][type="image/svg+xml"]').href]
		.map(u => fetch(u).then(r => r.status + " " + r.headers.get("Content-Type"))))`, chromedp.EvalAwaitPromise))
	if len(got) != 2 || got[0] != "200 image/x-icon" || got[1] != "200 image/svg+xml" {
		t.Errorf("the icons answer %q", got)
	}
	if c := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('meta[name="theme-color"]').content`)); c != "#5b2a86" {
		t.Errorf("theme-color %q", c)
	}
}

// siteBanner: on a phone's first visit the banner takes at most a fifth
// of the screen, with the categories folded, and leaves a perfume's title
// in view; a choice keeps the visitor where they were on the page.
func siteBanner(t *testing.T, svc *service) {
	for _, path := range []string{"/", "/perfumes/dior-sauvage", "/brands", "/notes/vanilla"} {
		ctx := browser(t)
		phone(t, ctx)
		run(t, ctx, chromedp.Navigate(svc.base+path), chromedp.WaitVisible(css(`section.consent`)))
		share := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("section.consent").getBoundingClientRect().height / window.innerHeight`))
		if share > 0.2 {
			t.Errorf("%s: the banner takes %.0f%% of a 390×844 screen", path, 100*share)
		}
		if visible(t, ctx, `section.consent fieldset`) {
			t.Errorf("%s: the categories are not folded", path)
		}
		if path == "/perfumes/dior-sauvage" {
			if get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".product h1").getBoundingClientRect().bottom <= document.querySelector("section.consent").getBoundingClientRect().top`)) == false {
				t.Error("the banner covers the perfume's title")
			}
		}
	}

	// Down a long list, each choice leaves the visitor where they were:
	// Reject all without a reload, Accept all reloads (the analytics
	// snippet comes with the page) at the same place.
	for _, choice := range []string{"reject", "accept"} {
		ctx := browser(t)
		phone(t, ctx)
		run(t, ctx, chromedp.Navigate(svc.base+"/brands?letter=m"), chromedp.WaitVisible(css(`section.consent`)),
			chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 1500); window.stayed = true`))
		run(t, ctx, chromedp.Click(css(`section.consent button[value=`+choice+`]`)), chromedp.WaitNotPresent(css(`section.consent`)))
		if choice == "accept" {
			run(t, ctx, chromedp.Poll[chromedp.Void](`window.analyticsRan === true`))
		} else if !get(t, ctx, chromedp.Evaluate[bool](`window.stayed === true`)) {
			t.Error("Reject all reloaded the page")
		}
		y := get(t, ctx, chromedp.Poll[float64](`window.scrollY > 0 && window.scrollY`))
		if math.Abs(y-1500) > 2 {
			t.Errorf("after %s the page is at %.0f px, not 1500", choice, y)
		}
		if url := get(t, ctx, chromedp.Location()); !strings.HasSuffix(url, "/brands?letter=m") {
			t.Errorf("after %s at %s", choice, url)
		}
		if cs := cookies(t, ctx); !consentValue.MatchString(cs["consent"]) {
			t.Errorf("after %s: cookies %v", choice, cs)
		}
	}
}

// siteMenu: on a phone the sections fold behind a Menu button that the
// keyboard reaches and opens, with or without JavaScript; on a desktop
// they stand in the bar.
func siteMenu(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	phone(t, ctx)
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/dior-sauvage"), chromedp.WaitReady(css(`footer`)))
	if visible(t, ctx, `nav[aria-label=Main] a`) || !visible(t, ctx, `details.menu summary`) {
		t.Fatal("at 390 px the sections are not folded behind Menu")
	}
	if h := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("header.top").getBoundingClientRect().height`)); h > 130 {
		t.Errorf("the header is %.0f px high at 390 px", h)
	}
	// Tab from the top of the page reaches Menu, Enter opens it, Escape
	// closes it and leaves the focus on it.
	for i := 0; i < 4 && !get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.matches("details.menu summary")`)); i++ {
		run(t, ctx, chromedp.KeyEvent(kb.Tab))
	}
	if get(t, ctx, chromedp.Evaluate[string](`document.activeElement.textContent`)) != "Menu" {
		t.Fatal("Tab does not reach the Menu button")
	}
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	if !visible(t, ctx, `nav[aria-label=Main] a[href="/notes"]`) {
		t.Error("Enter on Menu does not show the sections")
	}
	run(t, ctx, chromedp.KeyEvent(kb.Escape))
	if visible(t, ctx, `nav[aria-label=Main] a`) || !get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.matches("details.menu summary")`)) {
		t.Error("Escape does not close Menu and keep the focus on it")
	}

	noJS := browser(t)
	chosen(t, noJS, svc)
	phone(t, noJS)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, noJS, chromedp.Navigate(svc.base+"/brands"), chromedp.WaitReady(css(`footer`)), chromedp.Click(css(`details.menu summary`)))
	if !visible(t, noJS, `nav[aria-label=Main] a[href="/accords"]`) {
		t.Error("without JavaScript Menu does not open")
	}

	run(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(svc.base+"/brands"), chromedp.WaitReady(css(`footer`)))
	if !visible(t, ctx, `nav[aria-label=Main] a[href="/developer"]`) || visible(t, ctx, `details.menu summary`) {
		t.Error("at 1280 px the sections are not in the bar")
	}
}

// clippedTables lists the tables of the page shown (every details element
// opened) that reach past the screen or past an ancestor that cuts its
// overflow; a table in a box that scrolls is not cut.
const clippedTables = `(() => {
	document.querySelectorAll("details").forEach(d => d.open = true);
	const out = [];
	for (const t of document.querySelectorAll("table")) {
		const r = t.getBoundingClientRect();
		if (r.width === 0) continue;
		let right = window.innerWidth, scrolls = false;
		for (let a = t.parentElement; a; a = a.parentElement) {
			const o = getComputedStyle(a).overflowX;
			if (o === "auto" || o === "scroll") { scrolls = true; break; }
			if (o !== "visible") right = Math.min(right, a.getBoundingClientRect().right);
		}
		if (!scrolls && (r.right > right + 1 || r.left < -1)) out.push((t.id || t.className || "table") + " to " + Math.round(r.right));
	}
	return out;
})()`

// sitePhoneLayout: at 390 px no page of the site is wider than the
// screen and no table is cut.
func sitePhoneLayout(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	phone(t, ctx)
	for _, p := range sitePageKinds {
		run(t, ctx, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)))
		if w := get(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`)); w > 0 {
			t.Errorf("%s at 390 px scrolls sideways by %d px", p.name, w)
		}
		if cut := get(t, ctx, chromedp.Evaluate[[]string](clippedTables)); len(cut) > 0 {
			t.Errorf("%s at 390 px cuts tables: %v", p.name, cut)
		}
	}
}

// sitePerfumePage: the rating as stars, longevity and sillage as meters
// with their scales' words, accord bars with edges, the charts' tables
// folded, a placeholder behind every bottle still on its way, the title
// above the bottle on a phone; a perfume without similar perfumes says
// why and shows more of its brand.
func sitePerfumePage(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/dior-sauvage"), chromedp.WaitReady(css(`footer`)))
	if !visible(t, ctx, `.rating svg.stars`) || !strings.Contains(get(t, ctx, chromedp.Text(css(`.rating`))), "3.86 of 5 from 32,551 ratings") {
		t.Error("the rating has no stars beside its number and count")
	}
	meters := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[role=meter]')].map(m => m.getAttribute("aria-valuetext") + " | " + m.innerText.replace(/\s+/g, " "))`))
	if len(meters) != 2 || !strings.HasPrefix(meters[0], "long-lasting, 3.59 of 5 | Long-lasting 3.59 of 5") ||
		!strings.Contains(meters[0], "very weak weak moderate long-lasting eternal") || !strings.HasPrefix(meters[1], "strong, 2.55 of 4") {
		t.Errorf("the meters: %q", meters)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".bars li")].filter(li => li.querySelectorAll("rect")[1].getAttribute("stroke")).length`)); n != 8 {
		t.Errorf("%d accord bars with an edge, want 8", n)
	}
	if visible(t, ctx, `figure.chart table`) || get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart details > summary").length`)) != 2 {
		t.Error("the charts' tables are not folded under them")
	}
	bottles := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".card img, .product .photo img")].map(i => (i.src.includes(".jpg") ? "jpg " : "other ") + getComputedStyle(i).backgroundImage)`))
	for _, b := range bottles {
		if !strings.Contains(b, "linear-gradient") || strings.HasPrefix(b, "jpg") && !strings.Contains(b, "data:image/svg+xml") {
			t.Errorf("a bottle without its ground or its placeholder: %.80s", b)
		}
	}
	phone(t, ctx)
	if !get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".product h1").getBoundingClientRect().bottom <= document.querySelector(".product .photo").getBoundingClientRect().top`)) {
		t.Error("on a phone the title is not above the bottle")
	}

	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/giorgio-armani-armani-code-elixir"), chromedp.WaitReady(css(`footer`)))
	section := get(t, ctx, chromedp.Text(css(`section[aria-labelledby=similar-h]`)))
	if !strings.Contains(section, "found by their accords and notes") || !strings.Contains(section, "More from Giorgio Armani") ||
		get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("section[aria-labelledby=similar-h] .card").length`)) != 6 {
		t.Errorf("a perfume without similar perfumes: %q", section)
	}
}

// siteLists: the brands' A–Z index and filter (with and without
// JavaScript), the notes' groups, the accords' colours.
func siteLists(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	run(t, ctx, chromedp.Navigate(svc.base+"/brands"), chromedp.WaitReady(css(`footer`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("nav.letters li").length`)); n != 27 {
		t.Errorf("the A–Z index has %d entries", n)
	}
	submit(t, ctx, `nav.letters a[href="/brands?letter=c"]`)
	if first := get(t, ctx, chromedp.Text(css(`#names .list a`))); !strings.HasPrefix(first, "C") {
		t.Errorf("the first brand of C is %q", first)
	}
	// Typing filters the list in place and the address follows.
	run(t, ctx, chromedp.SendKeys(css(`#filter-q`), "hermes"),
		chromedp.Poll[chromedp.Void](`location.search === "?q=hermes" && document.querySelector("#names .list a").textContent === "Hermès"`))
	if s := get(t, ctx, chromedp.Text(css(`#names-status`))); !strings.Contains(s, "brand") {
		t.Errorf("the filter's status: %q", s)
	}

	noJS := browser(t)
	chosen(t, noJS, svc)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, noJS, chromedp.Navigate(svc.base+"/notes"), chromedp.WaitReady(css(`footer`)), chromedp.SendKeys(css(`#filter-q`), "pepper"))
	submit(t, noJS, `form.filter button`)
	if first := get(t, noJS, chromedp.Text(css(`#names .list a`))); !strings.Contains(first, "Pepper") {
		t.Errorf("without JavaScript the notes filter lists %q first", first)
	}

	run(t, ctx, chromedp.Navigate(svc.base+"/notes"), chromedp.WaitReady(css(`footer`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#names section h2").length`)); n < 10 {
		t.Errorf("the notes list has %d groups", n)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/accords"), chromedp.WaitReady(css(`footer`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#names .list li")].filter(li => !li.querySelector("svg.swatch rect[fill^='#']")).length`)); n != 0 {
		t.Errorf("%d accords without their colour", n)
	}
}

// siteSearch: bigger bottles and each result's main accords; an empty
// result says what to try.
func siteSearch(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	phone(t, ctx)
	run(t, ctx, chromedp.Navigate(svc.base+"/search?q=rose"), chromedp.WaitReady(css(`footer`)))
	if w := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector(".results img").getBoundingClientRect().width`)); w < 96 {
		t.Errorf("a result's bottle is %.0f px wide", w)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".results > li")].filter(li => li.querySelectorAll(".accords li").length > 0).length`)); n < 20 {
		t.Errorf("%d results show their accords", n)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/search?q=zzqxv"), chromedp.WaitReady(css(`footer`)))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".notice a").length`)); n < 4 {
		t.Errorf("an empty search suggests %d things", n)
	}
}

// sitePhotos runs axe-core on the site's page variants that the shared
// list of page kinds lacks, with the header's Menu open on a phone, and
// photographs them at 390 and 1280 px.
func sitePhotos(t *testing.T, svc *service) {
	look := photographer(t, "site")
	ctx := browser(t)
	chosen(t, ctx, svc)
	for _, p := range sitePageKinds {
		switch p.name {
		case "search-empty", "perfume-no-similar", "brands-letter", "brands-filter", "notes-group", "accords":
			run(t, ctx, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)))
			look(ctx, p.name)
		}
	}
	phone(t, ctx)
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.WaitReady(css(`footer`)), chromedp.Click(css(`details.menu summary`)))
	look(ctx, "menu-open")
}
