package site_test

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestSearchReadsDescriptions: a query that reads as a description leads
// with what was understood (a heading, removable chips, the words not
// understood) and the description ranking; a well-known perfume's name
// keeps its name results first with the description offered under them;
// a query that is exactly a note, an accord or a brand offers its page
// first, with its count. When the description's list leads, the filter
// panel says its counts are of the search by name.
func TestSearchReadsDescriptions(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct {
		q         string
		want, not []string
	}{
		{"vanilla tobacco for winter", []string{
			`<h2 id="reading-h">Perfumes with vanilla and tobacco, best in winter</h2>`,
			`<a href="/search?q=tobacco&#43;winter"><span class="vh">Remove </span>vanilla`,
			`<span class="vh">Remove </span>best in winter`,
			`<span class="meets">Has all 3</span>`,
			`href="/search?as=name&amp;q=vanilla&#43;tobacco&#43;for&#43;winter"`,
			`<p class="countsof">The counts are of the `,
			` named like “vanilla tobacco for winter”, not of the description’s list: the filters narrow the search by name.</p>`,
		}, []string{`class="exact"`, "Read as a description", "Not understood"}},
		{"tobacco vanille", []string{
			`match “tobacco vanille”`, "Read as a description",
			`href="/search?as=description&amp;q=tobacco&#43;vanille"`,
		}, []string{`class="exact"`, `class="countsof"`}},
		{"vanilla", []string{
			`<a href="/notes/vanilla"><span class="kind">Note</span> <strong>Vanilla</strong> <span class="muted">`,
			`<a href="/accords/vanilla">`, `<h2 id="reading-h">Perfumes with vanilla</h2>`,
		}, []string{"class=\"meets\""}},
		{"tom ford", []string{`<a href="/brands/tom-ford"><span class="kind">Brand</span> <strong>Tom Ford</strong> <span class="muted">136 perfumes`, `Perfumes by Tom Ford`}, nil},
		{"fresh citrus for men, no oud, zzqxv", []string{
			`Perfumes for men with fresh and citrus without agarwood (oud)`,
			`<span class="vh">Remove </span>no Agarwood (Oud)`, `Not understood: “zzqxv”`,
		}, nil},
		{"sauvage", []string{`match “sauvage”`}, []string{"reading-h", `class="exact"`, `class="countsof"`}},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", "/search?q="+url.QueryEscape(tt.q))
		body := rec.Body.String()
		if rec.Code != 200 {
			t.Errorf("%q: %d", tt.q, rec.Code)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%q: the page lacks %s", tt.q, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(body, n) {
				t.Errorf("%q: the page has %s", tt.q, n)
			}
		}
	}
	// The name result leads a well-known perfume's name, the description
	// under it, then the rest of the names.
	body := servetest.Do(t, h, "GET", "/search?q=tobacco+vanille").Body.String()
	if first := regexp.MustCompile(`<a href="/perfumes/([^"]+)"><strong>`).FindStringSubmatch(body); first == nil || first[1] != "tom-ford-tobacco-vanille" {
		t.Errorf("tobacco vanille: first result %v", first)
	}
	name, offered, more := strings.Index(body, `href="/perfumes/tom-ford-tobacco-vanille"><strong>`), strings.Index(body, "Read as a description"),
		strings.Index(body, `<h2 id="more-names-h">More perfumes named like “tobacco vanille”</h2>`)
	if name < 0 || offered < name || more < offered {
		t.Errorf("tobacco vanille: the name at %d, the description at %d, more names at %d", name, offered, more)
	}
}

// TestSearchChipRemovesItsTerm: a chip's link is the same search without
// its term, understood so.
func TestSearchChipRemovesItsTerm(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/search?q="+url.QueryEscape("vanilla, no oud, for winter")).Body.String()
	link := regexp.MustCompile(`<a href="([^"]+)"><span class="vh">Remove </span>no Agarwood \(Oud\)`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no chip for the exclusion")
	}
	next := servetest.Do(t, h, "GET", html.UnescapeString(link[1])).Body.String()
	if !strings.Contains(next, `<h2 id="reading-h">Perfumes with vanilla, best in winter</h2>`) {
		t.Errorf("without the exclusion: %s", regexp.MustCompile(`<h2 id="reading-h">[^<]*`).FindString(next))
	}
}

// TestSearchReadAs: as=name reads a query as a name only, as=description
// as a description first, anything else is a 400 saying what as takes.
func TestSearchReadAs(t *testing.T) {
	h := servetest.NewServer(t, nil)
	if body := servetest.Do(t, h, "GET", "/search?q=vanilla&as=name").Body.String(); strings.Contains(body, "reading-h") || !strings.Contains(body, `match “vanilla”`) {
		t.Error("as=name still reads a description")
	}
	if body := servetest.Do(t, h, "GET", "/search?q=tobacco+vanille&as=description").Body.String(); !strings.Contains(body, `<section class="reading" aria-labelledby="reading-h">`) || strings.Contains(body, "Read as a description") {
		t.Error("as=description does not lead with the description")
	}
	rec := servetest.Do(t, h, "GET", "/search?q=vanilla&as=colour")
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "as is name or description") {
		t.Errorf("as=colour: %d", rec.Code)
	}
	if rec := servetest.Do(t, h, "GET", "/search?q=vanilla+tobacco&page=2"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `rel="prev"`) {
		t.Errorf("a description's page 2: %d", rec.Code)
	}
}
