package site_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/search"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// TestNoteGroupsCoverCatalogue: the groups hold nearly every use of a
// note in the bundled catalogue; "Other notes", last, keeps the rest.
func TestNoteGroupsCoverCatalogue(t *testing.T) {
	uses, other, others, last := site.NoteGroupUses(servetest.Catalogue(t).Load())
	t.Logf("%.2f%% of %d uses of notes in no group (%d notes)", 100*float64(other)/float64(uses), uses, len(others))
	if share := float64(other) / float64(uses); share > 0.02 {
		t.Errorf("%.1f%% of the notes' uses are in no group; the most used: %s", 100*share, strings.Join(others[:min(40, len(others))], ", "))
	}
	if last != "other" {
		t.Errorf("the last group is %s", last)
	}
}

var listItem = regexp.MustCompile(`<li><a href="(/[a-z]+/[^"]+)">(?:<svg class="swatch"[^>]*><rect [^>]*fill="([^"]+)"[^>]*/></svg>)?([^<]+)</a> <span class="muted">([0-9,]+)</span></li>`)

// names are the names, links and colours of a list page's items.
func names(body string) (names, links, colors []string) {
	for _, m := range listItem.FindAllStringSubmatch(body, -1) {
		links, colors, names = append(links, m[1]), append(colors, m[2]), append(names, m[3])
	}
	return names, links, colors
}

// TestBrandsList: the brands the best known first, an A–Z index whose
// letters list their brands by name, and a filter box (a GET form) that
// says what to try when it finds nothing.
func TestBrandsList(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/brands").Body.String()
	got, _, _ := names(body)
	if len(got) != 120 || got[0] != "Dior" || slices.Index(got, "Zara") < slices.Index(got, "Chanel") {
		t.Errorf("/brands lists %d brands, first %q", len(got), got[:min(5, len(got))])
	}
	for _, want := range []string{
		`<form class="filter search" role="search" aria-label="Filter brands" action="/brands" method="get" data-live="letters names-status names">`,
		`<nav id="letters" class="letters" aria-label="Brands by first letter">`,
		`<li><a href="/brands?letter=a">A</a></li>`, `<li><a href="/brands?letter=other">0–9 …</a></li>`,
		`<p id="names-status" class="muted" role="status">2,56`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/brands lacks %s", want)
		}
	}
	c := servetest.Do(t, h, "GET", "/brands?letter=c").Body.String()
	got, _, _ = names(c)
	if len(got) < 100 || !strings.Contains(c, `<a href="/brands?letter=c" aria-current="page">C</a>`) ||
		!strings.Contains(c, `<link rel="canonical" href="https://fragrance.example/brands?letter=c">`) {
		t.Errorf("/brands?letter=c lists %d brands", len(got))
	}
	for i, n := range got {
		if !strings.HasPrefix(search.Fold(n), "c") || i > 0 && search.Fold(got[i-1]) > search.Fold(n) {
			t.Fatalf("/brands?letter=c: %q after %q", n, got[max(i-1, 0)])
		}
	}
	if rec := servetest.Do(t, h, "GET", "/brands?letter=cc"); rec.Code != 404 {
		t.Errorf("/brands?letter=cc = %d", rec.Code)
	}
	q := servetest.Do(t, h, "GET", "/brands?q=hermes").Body.String()
	if got, _, _ = names(q); len(got) == 0 || got[0] != "Hermès" || !strings.Contains(q, `<meta name="robots" content="noindex">`) {
		t.Errorf("/brands?q=hermes lists %q", got)
	}
	none := servetest.Do(t, h, "GET", "/brands?q=zzqxv").Body.String()
	if !strings.Contains(none, "No brand matches “zzqxv”.") || !strings.Contains(none, `value="zzqxv"`) {
		t.Error("a filter that finds no brand says nothing to try")
	}
}

// TestNotesList: the notes in their groups, each group whole on a page of
// its own, and a filter by the start of a note's words.
func TestNotesList(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/notes").Body.String()
	for _, want := range []string{
		`<section aria-labelledby="citrus">`, `<h2 id="citrus">Citrus <span class="muted">`,
		`<li><a href="/notes/bergamot">Bergamot</a>`, `<a href="#woods">Woods and mosses</a>`,
		`<a href="/notes?group=flowers">All `, `<h2 id="other">Other notes`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/notes lacks %s", want)
		}
	}
	citrus := servetest.Do(t, h, "GET", "/notes?group=citrus").Body.String()
	if got, _, _ := names(citrus); len(got) < 50 || got[0] != "Bergamot" || slices.Contains(got, "Orange Blossom") {
		t.Errorf("/notes?group=citrus lists %d notes: %q", len(got), got[:min(5, len(got))])
	}
	pepper := servetest.Do(t, h, "GET", "/notes?q=pepp").Body.String()
	got, _, _ := names(pepper)
	if len(got) < 5 || !slices.Contains(got, "Pink Pepper") || !slices.Contains(got, "Black Pepper") {
		t.Errorf("/notes?q=pepp lists %q", got)
	}
	for _, n := range got {
		if !strings.Contains(strings.ToLower(n), "pepp") {
			t.Errorf("/notes?q=pepp lists %q", n)
		}
	}
	if rec := servetest.Do(t, h, "GET", "/notes?group=nope"); rec.Code != 404 {
		t.Errorf("/notes?group=nope = %d", rec.Code)
	}
}

// TestAccordsList: each accord in its colour; those of fewer than five
// perfumes are left out of the lists (here and on the home page), not out
// of their perfumes' pages.
func TestAccordsList(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/accords").Body.String()
	got, links, colors := names(body)
	if len(got) != 78 || got[0] != "woody" || colors[0] != "#774414" || links[0] != "/accords/woody" {
		t.Errorf("/accords lists %d accords, first %q in %q", len(got), got[:min(3, len(got))], colors[:min(1, len(colors))])
	}
	for _, rare := range []string{"brown scotch tape", "wet plaster", "industrial glue"} {
		if slices.Contains(got, rare) {
			t.Errorf("/accords lists %q", rare)
		}
	}
	if !strings.Contains(body, "The 12 accords of fewer than 5 perfumes are left out") {
		t.Error("/accords does not say that rare accords are left out")
	}
	if rec := servetest.Do(t, h, "GET", "/accords/brown-scotch-tape"); rec.Code != 200 {
		t.Errorf("the page of a rare accord: %d", rec.Code)
	}
}

// TestHomeLists: the home page's brands are the best known, its accord
// chips carry their colours.
func TestHomeLists(t *testing.T) {
	body := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/").Body.String()
	brands := body[strings.Index(body, `id="brands-h"`):strings.Index(body, `id="notes-h"`)]
	first := func(slug string) int { return strings.Index(brands, `href="/brands/`+slug+`"`) }
	if !strings.Contains(brands, `<li><a href="/brands/dior">Dior <span class="n">`) || first("dior") > first("chanel") ||
		first("chanel") > first("zara") || first("chanel") > first("avon") {
		t.Errorf("the home page's brands: %s", brands)
	}
	if !strings.Contains(body, `<li><a href="/accords/woody"><svg class="swatch"`) {
		t.Error("the home page's accords have no colour")
	}
	if !strings.Contains(body, `placeholder="Try “sauvage” or “smoky vanilla”"`) {
		t.Error("the home page's search box has another placeholder")
	}
}

// TestSearchRows: each result shows its bottle bigger and its main
// accords; a search that finds nothing says what to try.
func TestSearchRows(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/search?q=sauvage").Body.String()
	if n := strings.Count(body, `alt="" width="96" height="128"`); n != 24 {
		t.Errorf("%d bigger bottles, want 24", n)
	}
	if n := strings.Count(body, `<ul class="accords" aria-label="Main accords">`); n < 20 {
		t.Errorf("%d rows with their accords", n)
	}
	none := servetest.Do(t, h, "GET", "/search?q=zzqxv").Body.String()
	for _, want := range []string{"No perfume matches “zzqxv”.", `<a href="/brands?q=zzqxv">`, `<a href="/notes?q=zzqxv">`, `<a href="/search?q=sauvage">Sauvage</a>`} {
		if !strings.Contains(none, want) {
			t.Errorf("an empty search lacks %s", want)
		}
	}
}
