package site_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestPerfumePageReadings: the rating as stars beside its number and
// count, longevity and sillage as meters on their scales with the scale's
// words, accord bars with a darker edge, the charts' numbers folded under
// them, and the description in English.
func TestPerfumePageReadings(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/perfumes/dior-sauvage").Body.String()
	for _, want := range []string{
		`<clipPath id="stars-fill"><rect width="92.6" height="24"/></clipPath>`,
		`<strong>3.86</strong> of 5 from 32,551 ratings`,
		`<dt id="longevity-l">Longevity</dt>`,
		`role="meter" aria-labelledby="longevity-l" aria-valuemin="1" aria-valuemax="5" aria-valuenow="3.59" aria-valuetext="long-lasting, 3.59 of 5"`,
		`<li class="at">long-lasting</li>`,
		`role="meter" aria-labelledby="sillage-l" aria-valuemin="1" aria-valuemax="4" aria-valuenow="2.55" aria-valuetext="strong, 2.55 of 4"`,
		`<li>intimate</li><li>moderate</li><li class="at">strong</li><li>enormous</li>`,
		`fill="#83C928" stroke="#517d19"`, // fresh spicy, edged
		`<details>` + "\n" + `<summary>The numbers</summary>`,
		`Sauvage by Dior is an aromatic fougère fragrance for men.`,
		`<dd>Aromatic Fougère</dd>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the perfume page lacks %s", want)
		}
	}
	if n := strings.Count(body, `<summary>The numbers</summary>`); n != 2 {
		t.Errorf("%d folded tables, want 2 (seasons, day and night)", n)
	}
	if strings.Contains(body, "3.59 of 5</dd>") {
		t.Error("longevity is still a bare number")
	}
}

// TestPerfumePageWithoutSimilar: a perfume without notes or accords says
// why no similar perfume is listed and shows more of its brand (never
// itself); its content is what the template renders, hostile texts too.
func TestPerfumePageWithoutSimilar(t *testing.T) {
	const slug = "giorgio-armani-armani-code-elixir" // no accords, no notes
	h := servetest.NewServer(t, nil)
	body := servetest.Do(t, h, "GET", "/perfumes/"+slug).Body.String()
	for _, want := range []string{
		`<h2 id="similar-h">Similar perfumes</h2>`,
		`Similar perfumes are found by their accords and notes, and none are listed for this one.`,
		`<h3>More from Giorgio Armani</h3>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of %s lacks %s", slug, want)
		}
	}
	section := body[strings.Index(body, `id="similar-h"`):]
	cards := regexp.MustCompile(`<a href="/perfumes/([^"]+)"><img`).FindAllStringSubmatch(section, -1)
	if len(cards) < 6 {
		t.Errorf("%d more perfumes of the brand, want 6 at least", len(cards))
	}
	for _, c := range cards {
		if c[1] == slug {
			t.Error("the perfume is among its brand's other perfumes")
		}
	}

	s, ix := newSite(t)
	for k := range hostile {
		got, want, err := s.PerfumeContents(ix, slug, append(hostile[k:], hostile[:k]...))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("hostile texts (%d): content differs from the template's\n%s", k, firstDiff(got, want))
		}
	}
}
