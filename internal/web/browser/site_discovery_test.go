package browser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// siteDiscovery is the search read as a description and the taste, as a
// visitor meets them: the description's heading, chips that remove their
// term (by keyboard, no script needed), the card of a note, the taste page
// with two liked perfumes and its recommendations' reasons, adding by the
// suggestions, "Like this" kept in the browser only; axe-core and
// screenshots at 390 and 1280 px of each.
func siteDiscovery(t *testing.T, svc *service) {
	t.Run("Description", func(t *testing.T) { discoveryDescription(t, svc) })
	t.Run("Taste", func(t *testing.T) { discoveryTaste(t, svc) })
	t.Run("LikeThis", func(t *testing.T) { discoveryLikeThis(t, svc) })
	t.Run("Photos", func(t *testing.T) { discoveryPhotos(t, svc) })
}

// discoveryDescription: a description leads with its heading and chips;
// Tab reaches a chip and Enter removes its term; "vanilla" offers the
// note's and the accord's pages first; a well-known perfume's name leads
// with the description offered under it.
func discoveryDescription(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	run(t, ctx, chromedp.Navigate(svc.base+"/"), chromedp.WaitVisible(css(`#q`)), chromedp.SendKeys(css(`#q`), "vanilla tobacco for winter"))
	submit(t, ctx, `.hero button[type=submit]`)
	if h := get(t, ctx, chromedp.Text(css(`#reading-h`))); h != "Perfumes with vanilla and tobacco, best in winter" {
		t.Errorf("the description's heading: %q", h)
	}
	chips := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".terms a")].map(a => a.innerText.replace(/\s+/g, " ").trim())`))
	if strings.Join(chips, "|") != "Remove vanilla ×|Remove tobacco ×|Remove best in winter ×" {
		t.Errorf("the chips: %q", chips)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".results .meets").length`)); n < 20 {
		t.Errorf("%d results say how much of the description they have", n)
	}
	// The keyboard reaches the first chip (past the filter panel's fields,
	// which come first); Enter follows it.
	run(t, ctx, chromedp.Focus(css(`#sq`)))
	for i := 0; i < 80 && !get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.matches(".terms a")`)); i++ {
		run(t, ctx, chromedp.KeyEvent(kb.Tab))
	}
	if !get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.matches(".terms li:first-child a")`)) {
		t.Fatal("Tab from the search box, past the filter panel, does not reach the first chip")
	}
	run(t, ctx, chromedp.Evaluate[chromedp.Void](`document.body.dataset.left = "yes"`), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitReady(css(`body:not([data-left]) footer`)))
	if h := get(t, ctx, chromedp.Text(css(`#reading-h`))); h != "Perfumes with tobacco, best in winter" {
		t.Errorf("after removing vanilla: %q", h)
	}

	run(t, ctx, chromedp.Navigate(svc.base+"/search?q=vanilla"), chromedp.WaitReady(css(`footer`)))
	cards := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".exact a")].map(a => a.getAttribute("href") + " " + a.textContent.replace(/\s+/g, " "))`))
	if len(cards) != 2 || !strings.HasPrefix(cards[0], "/accords/vanilla Accord vanilla ") || !strings.HasPrefix(cards[1], "/notes/vanilla Note Vanilla ") {
		t.Errorf("the cards of vanilla: %q", cards)
	}
	if !get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".exact").getBoundingClientRect().bottom <= document.querySelector("#reading-h").getBoundingClientRect().top`)) {
		t.Error("the cards do not come first")
	}

	run(t, ctx, chromedp.Navigate(svc.base+"/search?q=tobacco+vanille"), chromedp.WaitReady(css(`footer`)))
	if first := get(t, ctx, chromedp.Text(css(`.results a strong`))); first != "Tobacco Vanille" {
		t.Errorf("tobacco vanille: the first result is %q", first)
	}
	if !visible(t, ctx, `.offered .terms a`) || get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".offered .card").length`)) != 4 {
		t.Error("tobacco vanille: no description offered under the names")
	}
}

// discoveryTaste: the taste page with two liked perfumes recommends with
// reasons; a suggestion of the form adds a perfume (with JavaScript), the
// form's Find lists perfumes to add (without), and the taste is kept in
// the browser for the bare /taste.
func discoveryTaste(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	run(t, ctx, chromedp.Navigate(svc.base+"/taste?liked=tom-ford-tobacco-vanille&liked=creed-aventus"), chromedp.WaitReady(css(`footer`)))
	reasons := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".recs .reasons li")].map(li => li.textContent)`))
	var tv, av bool
	for _, r := range reasons {
		tv = tv || strings.HasPrefix(r, "Shares ") && strings.HasSuffix(r, " with Tobacco Vanille")
		av = av || strings.HasPrefix(r, "Shares ") && strings.HasSuffix(r, " with Aventus")
	}
	if !tv || !av {
		t.Errorf("the reasons name not both liked perfumes: %q", reasons)
	}
	run(t, ctx, chromedp.SendKeys(css(`#like-q`), "sauvage"), chromedp.WaitVisible(css(`#like-s a`)),
		chromedp.Poll[chromedp.Void](`document.querySelector("#like-s a").textContent === "Sauvage · Dior"`))
	if href := get(t, ctx, chromedp.AttributeValue(css(`#like-s a`), "href")); !strings.HasSuffix(href.Value, "/taste?liked=tom-ford-tobacco-vanille&liked=creed-aventus&liked=dior-sauvage") {
		t.Errorf("the first suggestion adds by %q", href.Value)
	}
	submit(t, ctx, `#like-s a`)
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#liked-h + .picks li").length`)); n != 3 {
		t.Errorf("after choosing a suggestion %d perfumes are liked", n)
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/taste"), chromedp.WaitReady(css(`body footer`)),
		chromedp.Poll[chromedp.Void](`location.search.includes("dior-sauvage")`))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#liked-h + .picks li").length`)); n != 3 {
		t.Errorf("the bare taste page opened %d liked perfumes of the kept taste", n)
	}

	noJS := browser(t)
	chosen(t, noJS, svc)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, noJS, chromedp.Navigate(svc.base+"/taste?liked=creed-aventus"), chromedp.WaitReady(css(`footer`)), chromedp.SendKeys(css(`#dislike-q`), "sauvage"))
	submit(t, noJS, `form[aria-label="Add a perfume you dislike"] button`)
	submit(t, noJS, `.picks a.add`)
	if url := get(t, noJS, chromedp.Location()); !strings.HasSuffix(url, "/taste?disliked=dior-sauvage&liked=creed-aventus") {
		t.Errorf("without JavaScript, adding a disliked perfume went to %s", url)
	}
}

// discoveryLikeThis: "Like this" becomes a toggle that keeps the perfume
// in the browser (no cookie, nothing sent), with a link to the taste;
// without JavaScript it is a link to the taste page with the perfume.
func discoveryLikeThis(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	before := cookies(t, ctx)
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/dior-sauvage"), chromedp.WaitVisible(css(`button.like`)),
		chromedp.Evaluate[chromedp.Void](`localStorage.clear()`))
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/dior-sauvage"), chromedp.WaitVisible(css(`button.like`)))
	if p := get(t, ctx, chromedp.AttributeValue(css(`button.like`), "aria-pressed")); p.Value != "false" || visible(t, ctx, `.taste-link`) {
		t.Error("Like this starts pressed, or with a taste link")
	}
	run(t, ctx, chromedp.Click(css(`button.like`)),
		chromedp.Poll[chromedp.Void](`document.querySelector("button.like").getAttribute("aria-pressed") === "true"`, chromedp.WithPollingTimeout(5*time.Second)))
	if get(t, ctx, chromedp.Text(css(`button.like`))) != "Liked" {
		t.Error("Like this does not press")
	}
	run(t, ctx, chromedp.Navigate(svc.base+"/perfumes/creed-aventus"), chromedp.WaitVisible(css(`button.like`)), chromedp.Click(css(`button.like`)))
	if kept := get(t, ctx, chromedp.Evaluate[string](`localStorage.getItem("fragrance.taste")`)); kept != `{"liked":["dior-sauvage","creed-aventus"],"disliked":[]}` {
		t.Errorf("the kept taste: %s", kept)
	}
	if after := cookies(t, ctx); len(after) != len(before) {
		t.Errorf("Like this set a cookie: %v", after)
	}
	if href := get(t, ctx, chromedp.AttributeValue(css(`.taste-link`), "href")); !strings.HasSuffix(href.Value, "/taste?liked=dior-sauvage&liked=creed-aventus") || !visible(t, ctx, `.taste-link`) {
		t.Errorf("the taste link: %q", href.Value)
	}
	run(t, ctx, chromedp.Click(css(`button.like`)))
	if kept := get(t, ctx, chromedp.Evaluate[string](`localStorage.getItem("fragrance.taste")`)); kept != `{"liked":["dior-sauvage"],"disliked":[]}` {
		t.Errorf("after pressing Liked again: %s", kept)
	}

	noJS := browser(t)
	chosen(t, noJS, svc)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, noJS, chromedp.Navigate(svc.base+"/perfumes/dior-sauvage"), chromedp.WaitReady(css(`footer`)))
	submit(t, noJS, `a.like`)
	if url := get(t, noJS, chromedp.Location()); !strings.HasSuffix(url, "/taste?liked=dior-sauvage") {
		t.Errorf("without JavaScript Like this went to %s", url)
	}
}

// discoveryPhotos runs axe-core on the discovery pages and photographs
// them at 390 and 1280 px.
func discoveryPhotos(t *testing.T, svc *service) {
	look := photographer(t, "discovery")
	ctx := browser(t)
	chosen(t, ctx, svc)
	for _, p := range []struct{ name, path string }{
		{"description", "/search?q=vanilla+tobacco+for+winter"},
		{"description-ignored", "/search?q=fresh+citrus+for+men%2C+no+oud%2C+zzqxv"},
		{"card-vanilla", "/search?q=vanilla"},
		{"card-brand", "/search?q=tom+ford"},
		{"name-then-description", "/search?q=tobacco+vanille"},
		{"taste-empty", "/taste?liked="},
		{"taste-two-liked", "/taste?liked=tom-ford-tobacco-vanille&liked=creed-aventus&disliked=dior-sauvage"},
		{"taste-found", "/taste?liked=creed-aventus&like=sauvage"},
		{"perfume-like", "/perfumes/tom-ford-tobacco-vanille"},
	} {
		run(t, ctx, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)))
		if p.name == "perfume-like" {
			run(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.clear()`), chromedp.Reload(), chromedp.WaitVisible(css(`button.like`)),
				chromedp.Click(css(`button.like`)))
		}
		look(ctx, p.name)
	}
}
