package site_test

import (
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestTastePage: the taste in the address gives recommendations with
// their reasons, never a perfume of the taste; each pick links to the
// taste without it; the forms carry the taste; a name search offers
// perfumes to add; an empty taste offers popular perfumes to start with.
func TestTastePage(t *testing.T) {
	h := servetest.NewServer(t, nil)
	rec := servetest.Do(t, h, "GET", "/taste?liked=tom-ford-tobacco-vanille&liked=creed-aventus&disliked=dior-sauvage")
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("GET /taste = %d", rec.Code)
	}
	for _, want := range []string{
		`<h2 id="recs-h">Recommended for you</h2>`,
		`with Tobacco Vanille</li>`, `with Aventus</li>`, `<ul class="reasons"><li>Shares `,
		`<a class="remove" href="/taste?disliked=dior-sauvage&amp;liked=creed-aventus">Remove<span class="vh"> Tobacco Vanille</span>`,
		`<a class="remove" href="/taste?liked=tom-ford-tobacco-vanille&amp;liked=creed-aventus">Remove<span class="vh"> Sauvage</span>`,
		`<input type="hidden" name="liked" value="creed-aventus">`,
		`data-suggest-to="/taste?disliked=dior-sauvage&amp;liked=tom-ford-tobacco-vanille&amp;liked=creed-aventus&amp;liked="`,
		`data-liked="tom-ford-tobacco-vanille creed-aventus" data-disliked="dior-sauvage"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the taste page lacks %s", want)
		}
	}
	recs := body[strings.Index(body, `id="recs-h"`):]
	for _, own := range []string{"/perfumes/tom-ford-tobacco-vanille\"", "/perfumes/creed-aventus\"", "/perfumes/dior-sauvage\""} {
		if strings.Contains(recs, own) {
			t.Errorf("a perfume of the taste is recommended: %s", own)
		}
	}

	body = servetest.Do(t, h, "GET", "/taste?liked=creed-aventus&like=sauvage").Body.String()
	if !strings.Contains(body, `<a class="add" href="/taste?liked=creed-aventus&amp;liked=dior-sauvage">Add<span class="vh"> Sauvage</span>`) {
		t.Error("a name search does not offer Sauvage to add")
	}
	body = servetest.Do(t, h, "GET", "/taste").Body.String()
	if !strings.Contains(body, `<h2 id="start-h">Start with a perfume you know</h2>`) || strings.Contains(body, "recs-h") {
		t.Error("an empty taste offers nothing to start with")
	}
}

// TestTasteRefusesWhatItCannotRead: unknown perfumes, too many, one both
// liked and disliked and a name too long to find are a 400 saying so,
// the rest of the taste kept.
func TestTasteRefusesWhatItCannotRead(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct{ query, says string }{
		{"liked=no-such-perfume&liked=creed-aventus", "No perfume is known as “no-such-perfume”: left out."},
		{"liked=creed-aventus&disliked=creed-aventus", "Aventus is both liked and disliked: it is kept as liked."},
		{"liked=creed-aventus&like=" + strings.Repeat("x", 201), "A name to find is at most 200 characters."},
		{"liked=a&liked=b&liked=c&liked=d&liked=e&liked=f&liked=g&liked=h&liked=i&liked=j&liked=k", "No perfume is known as"},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", "/taste?"+tt.query)
		if body := rec.Body.String(); rec.Code != 400 || !strings.Contains(body, tt.says) {
			t.Errorf("/taste?%.60s = %d, want 400 saying %q", tt.query, rec.Code, tt.says)
		}
	}
	var many []string
	for _, slug := range []string{"creed-aventus", "dior-sauvage", "mugler-alien", "mugler-angel", "versace-eros", "dior-j-adore",
		"chanel-coco-mademoiselle", "tom-ford-black-orchid", "lancome-la-vie-est-belle", "dior-hypnotic-poison", "yves-saint-laurent-black-opium"} {
		many = append(many, "liked="+slug)
	}
	rec := servetest.Do(t, h, "GET", "/taste?"+strings.Join(many, "&"))
	if body := rec.Body.String(); rec.Code != 400 || !strings.Contains(body, "A taste holds at most 10 perfumes liked") || strings.Contains(body, `value="yves-saint-laurent-black-opium"`) {
		t.Errorf("11 liked perfumes = %d", rec.Code)
	}
}

// TestPerfumePageLikeThis: the perfume page's "Like this" is a link to
// the taste page with the perfume, which site.js turns into a button.
func TestPerfumePageLikeThis(t *testing.T) {
	body := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/perfumes/dior-sauvage").Body.String()
	if !strings.Contains(body, `<a class="btn ghost like" href="/taste?liked=dior-sauvage" data-like="dior-sauvage">Like this</a>`) {
		t.Error("the perfume page has no Like this")
	}
}
