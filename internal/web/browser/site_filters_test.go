package browser_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// siteFilters: the filter panel of the search, brand, perfumer, note and
// accord pages. Open beside the list at 1280 px and folded behind one button at
// 390; a value's count is the total its choice gives; the address holds
// the filters, paging keeps them, a chip removes one; the form works
// without JavaScript; a bad value in the address is the page's own
// message; axe-core and screenshots of each page kind with the panel.
func siteFilters(t *testing.T, svc *service) {
	ctx := browser(t)
	chosen(t, ctx, svc)
	run(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(svc.base+"/brands/chanel"), chromedp.WaitReady(css(`footer`)))
	if !visible(t, ctx, `.filterform fieldset`) || visible(t, ctx, `details.filters summary`) {
		t.Error("at 1280 px the filter panel is not open beside the list")
	}

	// A value's count is what choosing it gives.
	feminine := facetCount(t, ctx, `input[name=gender][value=feminine]`)
	run(t, ctx, chromedp.Click(css(`input[name=gender][value=feminine]`)))
	submit(t, ctx, `.filterform button[type=submit]`)
	if s := get(t, ctx, chromedp.Evaluate[string](`location.search`)); s != "?gender=feminine" {
		t.Errorf("the address after filtering names more than the filter chosen: %s", s)
	}
	if got := introTotal(t, ctx); got != feminine || feminine == 0 {
		t.Errorf("feminine showed %d, the filtered list has %d", feminine, got)
	}
	winter := facetCount(t, ctx, `input[name=season][value=winter]`)
	run(t, ctx, chromedp.Click(css(`input[name=season][value=winter]`)))
	submit(t, ctx, `.filterform button[type=submit]`)
	if got := introTotal(t, ctx); got != winter || winter == 0 || winter >= feminine {
		t.Errorf("winter showed %d, the filtered list has %d (of %d feminine)", winter, got, feminine)
	}
	if brands := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".card .meta:first-of-type")].map(m => m.textContent.split(" · ")[0]).filter(b => b !== "Chanel")`)); len(brands) > 0 {
		t.Errorf("a filtered brand page lists other brands: %v", brands)
	}
	chips := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".chosen .chips a")].map(a => a.textContent.trim())`))
	if len(chips) != 3 || !strings.HasPrefix(chips[0], "Feminine") || !strings.HasPrefix(chips[1], "Winter") || chips[2] != "Clear all" {
		t.Errorf("the chips: %q", chips)
	}
	// The address is the page: opened afresh, it shows the same list.
	here := get(t, ctx, chromedp.Evaluate[string](`location.href`))
	run(t, ctx, chromedp.Navigate(here), chromedp.WaitReady(css(`footer`)))
	if got := introTotal(t, ctx); got != winter || !get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("input[name=season][value=winter]").checked`)) {
		t.Errorf("the shared address shows %d perfumes", got)
	}
	submit(t, ctx, `.chosen .chips a[aria-label="Remove the filter Winter"]`)
	if q := query(t, ctx); q.Get("season") != "" || q.Get("gender") != "feminine" || introTotal(t, ctx) != feminine {
		t.Errorf("removing the Winter chip leaves %v", q)
	}

	// Paging keeps the filters, and the panel shows them chosen.
	run(t, ctx, chromedp.Navigate(svc.base+"/search?q=rose&gender=feminine&accords=rose&sort=newest"), chromedp.WaitReady(css(`footer`)))
	submit(t, ctx, `.pager a[rel=next]`)
	if q := query(t, ctx); q.Get("page") != "2" || q.Get("gender") != "feminine" || q.Get("accords") != "rose" || q.Get("sort") != "newest" || q.Get("q") != "rose" {
		t.Errorf("page 2's address lost the filters: %v", q)
	}
	if !get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("input[name=accords][value=rose]").checked && document.querySelector("#f-sort").value === "newest"`)) {
		t.Error("page 2's panel does not show the filters chosen")
	}
	years := get(t, ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll(".results .muted")].map(m => +((m.textContent.match(/ · (\d{4})\b/) || [])[1] || 0))`))
	for i := 1; i < len(years); i++ {
		if years[i] > years[i-1] && years[i-1] != 0 {
			t.Errorf("newest first, yet %d comes after %d", years[i], years[i-1])
		}
	}

	// A bad value in the address: the page's own message, in the form's words.
	run(t, ctx, chromedp.Navigate(svc.base+"/notes/vanilla?season=monsoon&accords=woodyy"), chromedp.WaitReady(css(`footer`)))
	if msg := get(t, ctx, chromedp.Text(css(`.listing .notice[role=alert]`))); !strings.Contains(msg, "Season") || !strings.Contains(msg, "monsoon") {
		t.Errorf("a bad season says %q", msg)
	}

	// Without JavaScript the form is a plain GET.
	noJS := browser(t)
	chosen(t, noJS, svc)
	if _, err := chromedp.Call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	run(t, noJS, chromedp.Navigate(svc.base+"/accords/woody"), chromedp.WaitReady(css(`footer`)))
	run(t, noJS, chromedp.Evaluate[chromedp.Void](`document.querySelector("input[name=time][value=night]").checked = true;
		document.querySelector("#f-from").value = "2010"; document.querySelector("#f-rating").value = "4"`))
	submit(t, noJS, `.filterform button[type=submit]`)
	if q := query(t, noJS); q.Get("time") != "night" || q.Get("from") != "2010" || q.Get("minRating") != "4" {
		t.Errorf("without JavaScript the form sent %v", q)
	}
	if n := get(t, noJS, chromedp.Evaluate[int](`document.querySelectorAll(".grid .card").length`)); n == 0 {
		t.Error("without JavaScript the filtered accord page lists nothing")
	}

	// On a phone the panel folds behind one button, which opens it.
	phone(t, ctx)
	run(t, ctx, chromedp.Navigate(svc.base+"/brands/dior?gender=masculine"), chromedp.WaitReady(css(`footer`)))
	if visible(t, ctx, `.filterform fieldset`) || !visible(t, ctx, `details.filters summary`) || !visible(t, ctx, `.chosen .chips`) {
		t.Error("at 390 px the panel is not folded behind its button with the chips in view")
	}
	run(t, ctx, chromedp.Focus(css(`details.filters summary`)), chromedp.KeyEvent("\r"))
	if !visible(t, ctx, `.filterform fieldset`) {
		t.Error("Enter on the Filters button does not open the panel")
	}

	look := photographer(t, "filters")
	shots := browser(t)
	chosen(t, shots, svc)
	for _, p := range []struct{ name, path string }{
		{"search", "/search?q=rose&gender=feminine&season=spring"},
		{"search-no-text", "/search?accords=vanilla,amber&sort=rating"},
		{"search-none", "/search?q=sauvage&gender=feminine&from=2024&minRating=4.5"},
		{"brand", "/brands/chanel?gender=feminine&notes=Jasmine"},
		{"perfumer", "/perfumers/francois-demachy?gender=masculine"},
		{"note", "/notes/vanilla?time=night&minRating=4"},
		{"accord", "/accords/woody"},
		{"accord-filtered", "/accords/woody?season=winter&from=2015&to=2020&sort=newest"},
		{"bad-values", "/brands/chanel?season=monsoon&from=20x5&accords=woodyy"},
	} {
		run(t, shots, chromedp.Navigate(svc.base+p.path), chromedp.WaitReady(css(`footer`)))
		look(shots, p.name)
	}
	phone(t, shots)
	run(t, shots, chromedp.Navigate(svc.base+"/brands/chanel?gender=feminine"), chromedp.WaitReady(css(`footer`)),
		chromedp.Click(css(`details.filters summary`)))
	// The first screen of the panel just opened on a phone, as a visitor sees it.
	file := filepath.Join(screenshotDir(t), "filters-brand-panel-open-390-screen.png")
	if err := os.WriteFile(file, get(t, shots, chromedp.CaptureScreenshot()), 0o644); err != nil {
		t.Fatal(err)
	}
	look(shots, "brand-panel-open")
}

// facetCount is the count shown beside the filter input sel.
func facetCount(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	s := get(t, ctx, chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(sel)+`).closest("label").querySelector(".n").textContent`))
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatalf("the count beside %s: %q", sel, s)
	}
	return n
}

// introTotal is the number of perfumes the list's introduction names.
func introTotal(t *testing.T, ctx context.Context) int {
	t.Helper()
	s := get(t, ctx, chromedp.Text(css(`main h1 + p`)))
	n, err := strconv.Atoi(strings.ReplaceAll(strings.Fields(s)[0], ",", ""))
	if err != nil {
		t.Fatalf("the introduction: %q", s)
	}
	return n
}

// query is the address's query of the page shown.
func query(t *testing.T, ctx context.Context) url.Values {
	t.Helper()
	v, err := url.ParseQuery(strings.TrimPrefix(get(t, ctx, chromedp.Evaluate[string](`location.search`)), "?"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
