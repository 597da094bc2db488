package site_test

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestFilterPanelOnTheListPages: the search, brand, perfumer, note and
// accord pages carry the panel, a GET form to their own address with
// every input labelled.
func TestFilterPanelOnTheListPages(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for path, action := range map[string]string{
		"/search?q=rose": "/search", "/search": "/search", "/brands/dior": "/brands/dior",
		"/notes/vanilla": "/notes/vanilla", "/accords/woody": "/accords/woody", "/perfumers/francois-demachy": "/perfumers/francois-demachy",
	} {
		rec := servetest.Do(t, h, "GET", path)
		body := rec.Body.String()
		if rec.Code != 200 || !strings.Contains(body, `<details class="filters">`) ||
			!strings.Contains(body, `<form method="get" action="`+action+`" class="filterform"`) {
			t.Errorf("%s: %d, no filter panel to %s", path, rec.Code, action)
			continue
		}
		form := body[strings.Index(body, `class="filterform"`):]
		form = form[:strings.Index(form, `</form>`)]
		if n, legends := strings.Count(form, "<fieldset"), strings.Count(form, "<legend>"); n < 6 || n != legends {
			t.Errorf("%s: %d fieldsets, %d legends", path, n, legends)
		}
		if inputs, labelled := strings.Count(form, `<input type="checkbox"`)+strings.Count(form, `<input type="radio"`),
			strings.Count(form, `<label><input`); inputs != labelled || inputs < 15 {
			t.Errorf("%s: %d checkboxes and radios, %d in their labels", path, inputs, labelled)
		}
	}
}

// TestFilteredBrandPage: a brand's perfumes narrowed by the filters, the
// total the one the panel counted for the value chosen, the values chosen
// checked and shown as chips, paging links that keep them, and a page
// kept out of search engines.
func TestFilteredBrandPage(t *testing.T) {
	h := servetest.NewServer(t, nil)
	plain := servetest.Do(t, h, "GET", "/brands/chanel").Body.String()
	feminine := shownCount(t, plain, "gender", "feminine")
	rec := servetest.Do(t, h, "GET", "/brands/chanel?gender=feminine")
	body := rec.Body.String()
	if rec.Code != 200 || introCount(t, body) != feminine {
		t.Fatalf("feminine showed %d; the filtered page: %d, %d perfumes", feminine, rec.Code, introCount(t, body))
	}
	winter := shownCount(t, body, "season", "winter")
	body = servetest.Do(t, h, "GET", "/brands/chanel?gender=feminine&season=winter&page=1").Body.String()
	if got := introCount(t, body); got != winter || winter >= feminine {
		t.Errorf("winter showed %d; the page lists %d (of %d feminine)", winter, got, feminine)
	}
	for _, want := range []string{
		`value="feminine" checked`, `value="winter" checked`, `<meta name="robots" content="noindex`,
		`aria-label="Remove the filter Winter"`, `href="/brands/chanel?season=winter"`, `href="/brands/chanel?gender=feminine"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the filtered page lacks %s", want)
		}
	}
	body = servetest.Do(t, h, "GET", "/brands/chanel?gender=feminine&sort=name").Body.String()
	next := regexp.MustCompile(`href="([^"]*)" rel="next"`).FindStringSubmatch(body)
	if next == nil || html.UnescapeString(next[1]) != "/brands/chanel?sort=name&gender=feminine&page=2" {
		t.Errorf("the next page: %v", next)
	}
	if !strings.Contains(body, "by Chanel match the filters, by name.") {
		t.Error("the introduction does not say the filters narrowed the list, or does not name the order")
	}
	if body := servetest.Do(t, h, "GET", "/brands/chanel").Body.String(); !strings.Contains(body, "by Chanel, most rated first.") ||
		strings.Contains(body, "match the filters") {
		t.Error("the unfiltered brand page's introduction speaks of filters")
	}
}

// TestFilteredAccordPageOrder: the accord page lists those where it is
// strongest first; filtered, the order chosen (most rated by default).
func TestFilteredAccordPageOrder(t *testing.T) {
	h := servetest.NewServer(t, nil)
	if body := servetest.Do(t, h, "GET", "/accords/woody").Body.String(); !strings.Contains(body, "those where it is strongest first") ||
		!strings.Contains(body, `<option value="" selected>Strongest accord first</option>`) {
		t.Error("the plain accord page is not in its own order")
	}
	body := servetest.Do(t, h, "GET", "/accords/woody?time=night").Body.String()
	if !strings.Contains(body, "woody accord match the filters, most rated first.") || !strings.Contains(body, `<option value="" selected>Most rated</option>`) {
		t.Error("the filtered accord page does not say it is most rated first")
	}
	if strings.Contains(body[strings.Index(body, "<legend>Accords"):], `value="woody"`) {
		t.Error("the accord page offers its own accord as a choice")
	}
}

// TestBadFiltersAreThePagesOwnMessage: values the panel cannot use are
// the page's own message (400) naming each field as the panel does,
// with the panel to fix them and no list; never a 500.
func TestBadFiltersAreThePagesOwnMessage(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct {
		path string
		want []string
	}{
		{"/brands/chanel?season=monsoon&from=20x5", []string{"Season: “monsoon” is not one of", "Year from: “20x5” is not a year"}},
		{"/search?q=rose&accords=woodyy", []string{"Accords: Unknown accord “woodyy”; did you mean “woody”?"}},
		{"/search?notes=vanilllla", []string{"Notes: Unknown note “vanilllla”"}},
		{"/notes/vanilla?minRating=9&sort=cheap", []string{"Rating: “9”", "Sort by: “cheap”"}},
		{"/accords/woody?gender=robot&gender=feminine", []string{"Gender: “robot”"}},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", tt.path)
		body := rec.Body.String()
		if rec.Code != 400 || !strings.Contains(body, `class="filterform"`) || strings.Contains(body, `class="card"`) || strings.Contains(body, `class="results"`) {
			t.Errorf("%s: %d, the panel shown: %v", tt.path, rec.Code, strings.Contains(body, `class="filterform"`))
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q", tt.path, w)
			}
		}
		// The count shown is the whole list's: no filter was applied.
		if strings.Contains(body, "match the filters") {
			t.Errorf("%s: the introduction says filters narrowed a list they did not", tt.path)
		}
		// No list is shown, so no order is named.
		if strings.Contains(body, "most rated first") {
			t.Errorf("%s: the introduction names the order of a list not shown", tt.path)
		}
	}
}

// shownCount is the count the panel shows beside a value.
func shownCount(t *testing.T, body, name, value string) int {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `" value="` + value + `"[^>]*> [^<]* <span class="n">([\d,]+)</span>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no count beside %s=%s", name, value)
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n
}

// introCount is the number the list's introduction starts with.
func introCount(t *testing.T, body string) int {
	t.Helper()
	m := regexp.MustCompile(`</h1>\n<p>([\d,]+) perfumes`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no introduction with a number")
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n
}
