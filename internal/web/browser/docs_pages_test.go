package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// docsPages checks the developer docs as a visitor reads them: the
// pricing page's cards, each with its call to action, one column on a
// phone; the reference's sidebar in view down the page from 1024 px; a
// link whose text is code underlined below its underscores; and no page
// of the docs scrolls sideways at 390 px.
func docsPages(t *testing.T, svc *service) {
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(svc.base+"/pricing"), chromedp.Click(css(`section.consent button[value=reject]`)),
		chromedp.WaitNotPresent(css(`section.consent`)))

	// Pricing: a card a tier, its call to action where it leads.
	ctas := get(t, ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll(".plan")].map(p =>
		[p.querySelector("h2").textContent, [...p.querySelectorAll(".cta a.btn")].map(a => a.textContent + " → " + a.getAttribute("href")).join(" | ")]))`))
	want := map[string]string{
		"Free":       "Get a free key → /developer",
		"Basic":      "Request Basic in the portal → /developer/keys",
		"Pro":        "Request Pro in the portal → /developer/keys",
		"Enterprise": "Request Enterprise in the portal → /developer/keys",
	}
	for tier, w := range want {
		if ctas[tier] != w {
			t.Errorf("the %s card's call to action: %q, want %q", tier, ctas[tier], w)
		}
	}
	if len(ctas) != len(want) {
		t.Errorf("pricing cards: %v", ctas)
	}
	for _, width := range []int64{390, 1280} {
		run(t, ctx, chromedp.EmulateViewport(width, 844))
		lefts := get(t, ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll(".plan")].map(p => Math.round(p.getBoundingClientRect().left))`))
		oneColumn := len(lefts) == 4 && lefts[0] == lefts[1] && lefts[1] == lefts[2] && lefts[2] == lefts[3]
		if oneColumn != (width == 390) {
			t.Errorf("at %d px the pricing cards stand at %v", width, lefts)
		}
	}

	// The reference: the sidebar stays in view down the page from 1024 px.
	run(t, ctx, chromedp.EmulateViewport(1024, 800), chromedp.Navigate(svc.base+"/docs/reference"), chromedp.WaitVisible(css(`.refnav`)),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight / 2)`))
	if top := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector(".refnav").getBoundingClientRect().top`)); top < 0 || top > 10 {
		t.Errorf("halfway down the reference at 1024 px the sidebar's top is at %.0f px", top)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".refnav a")].filter(a => { const r = a.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }).length`)); n < 10 {
		t.Errorf("halfway down the reference %d endpoints' links are in view", n)
	}
	// invalid_parameter: the underline sits below the underscores.
	offset := get(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('a[href="/docs/errors#invalid_parameter"]')).textUnderlineOffset`))
	if offset == "auto" || offset == "" || strings.HasPrefix(offset, "0") {
		t.Errorf("a link to invalid_parameter has its underline at %q", offset)
	}

	// No page of the docs scrolls sideways on a phone.
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
	for _, path := range []string{"/docs", "/docs/reference", "/docs/errors", "/changelog", "/pricing",
		"/developer", "/developer/playground?endpoint=getPerfume&slug=dior-sauvage"} {
		run(t, ctx, chromedp.Navigate(svc.base+path), chromedp.WaitReady(css(`footer`)))
		if w := get(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`)); w > 0 {
			t.Errorf("%s at 390 px scrolls sideways by %d px", path, w)
		}
	}
}
