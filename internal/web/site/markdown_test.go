package site_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// mdLink finds the targets of Markdown links.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkTwin asserts a Markdown twin's answer: 200, the Markdown type, an
// ETag that revalidates, one H1 on the first line, every section an H2,
// and every link a page of the service that answers 200.
func checkTwin(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := servetest.Do(t, h, "GET", path)
	if rec.Code != 200 {
		t.Fatalf("GET %s = %d\n%s", path, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Errorf("%s: no ETag", path)
	} else if again := servetest.Do(t, h, "GET", path, "If-None-Match", etag); again.Code != http.StatusNotModified {
		t.Errorf("%s with its ETag = %d, want 304", path, again.Code)
	}
	body := rec.Body.String()
	lines := strings.Split(body, "\n")
	if !strings.HasPrefix(lines[0], "# ") {
		t.Errorf("%s: first line %q is not an H1", path, lines[0])
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "# ") {
			t.Errorf("%s: a second H1 %q", path, l)
		}
	}
	links := mdLink.FindAllStringSubmatch(body, -1)
	if len(links) == 0 {
		t.Errorf("%s: no links", path)
	}
	for _, m := range links {
		target, ok := strings.CutPrefix(m[1], servetest.BaseURL)
		if !ok {
			t.Errorf("%s: link %s is not the service's", path, m[1])
			continue
		}
		if got := servetest.Do(t, h, "GET", target); got.Code != 200 {
			t.Errorf("%s: link %s = %d", path, target, got.Code)
		}
	}
	return body
}

// TestPerfumeMarkdown: a perfume's twin says what the page says, in
// Markdown: accords with strengths, the pyramid, seasons, ratings, similar
// perfumes and cheaper alternatives with their slugs; the exported
// PerfumeMarkdown is the same text.
func TestPerfumeMarkdown(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := checkTwin(t, h, "/perfumes/dior-sauvage.md")
	for _, want := range []string{
		"# Sauvage by Dior\n", "\n> ", "- Slug: `dior-sauvage`", "(https://fragrance.example/brands/dior.md) (slug `dior`)",
		"\n## Accords\n", "| Accord | Strength |", "\n## Notes\n", "- Top notes: ", "\n## When to wear it\n", "- Winter ",
		"- Day ", "- Rating: ", " ratings\n", "\n## Similar perfumes\n", ".md) (`", "\n## Cheaper alternatives\n", "price tier ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the twin lacks %q:\n%s", want, body)
		}
	}
	if n := strings.Count(body, "\n- Brand: "); n != 1 {
		t.Errorf("the brand is written %d times", n)
	}
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	cat := servetest.Catalogue(t)
	ground, err := web.New(web.Config{Catalogue: cat, BaseURL: servetest.BaseURL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := site.New(site.Config{Web: ground, Catalogue: cat, View: view.NewBuilder(servetest.BaseURL, nil, ref.Color)})
	if err != nil {
		t.Fatal(err)
	}
	if md, ok := s.PerfumeMarkdown("dior-sauvage"); !ok || md != body {
		t.Errorf("PerfumeMarkdown = %v, not the twin served:\n%s", ok, md)
	}
	if _, ok := s.PerfumeMarkdown("no-such-perfume"); ok {
		t.Error("PerfumeMarkdown of an unknown slug is ok")
	}
}

// TestBrandMarkdown: a brand's twin lists its perfumes with their slugs.
func TestBrandMarkdown(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := checkTwin(t, h, "/brands/dior.md")
	for _, want := range []string{"# Dior\n", "\n> ", "- Slug: `dior`", "\n## Perfumes\n",
		"[Sauvage](https://fragrance.example/perfumes/dior-sauvage.md) (`dior-sauvage`)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the twin lacks %q:\n%s", want, body)
		}
	}
}

// TestMarkdownNotFound: an unknown slug's twin is a short Markdown 404;
// ".md" alone or twice is no perfume either.
func TestMarkdownNotFound(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for _, path := range []string{"/perfumes/no-such-perfume.md", "/brands/no-such-brand.md", "/perfumes/.md",
		"/perfumes/dior-sauvage.md.md", "/brands/dior.MD"} {
		rec := servetest.Do(t, h, "GET", path)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
	rec := servetest.Do(t, h, "GET", "/perfumes/no-such-perfume.md")
	if ct := rec.Header().Get("Content-Type"); ct != "text/markdown; charset=utf-8" || !strings.HasPrefix(rec.Body.String(), "# Not found") {
		t.Errorf("the twin's 404: %q\n%s", ct, rec.Body)
	}
}

// TestPagesLinkTheirTwins: the perfume and brand pages name their
// Markdown twin in the head.
func TestPagesLinkTheirTwins(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for path, twin := range map[string]string{
		"/perfumes/dior-sauvage": "/perfumes/dior-sauvage.md",
		"/brands/dior":           "/brands/dior.md",
		"/brands/dior?page=2":    "/brands/dior.md",
	} {
		body := servetest.Do(t, h, "GET", path).Body.String()
		if want := `<link rel="alternate" type="text/markdown" href="` + twin + `">`; !strings.Contains(body, want) {
			t.Errorf("%s lacks %s", path, want)
		}
	}
	if body := servetest.Do(t, h, "GET", "/notes/bergamot").Body.String(); strings.Contains(body, `type="text/markdown"`) {
		t.Error("a note page links a twin it does not have")
	}
}

// TestNoSlugEndsInMD: a twin is told from a page by its ".md"; no slug of
// the catalogue, perfume or brand, may end so (slugs are a-z, 0-9, "-").
func TestNoSlugEndsInMD(t *testing.T) {
	ix := servetest.Catalogue(t).Load()
	slug := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, id := range ix.IDs() {
		e, _ := ix.ByID(id)
		if !slug.MatchString(e.Slug()) || !slug.MatchString(e.BrandSlug()) {
			t.Fatalf("perfume %d: slug %q, brand slug %q", id, e.Slug(), e.BrandSlug())
		}
	}
}

// TestPerfumeMarkdownHostile: with every text of the page hostile, the
// twin keeps its shape: the same headings, one line per fact and per
// perfume, no HTML tag and no link the data made.
func TestPerfumeMarkdownHostile(t *testing.T) {
	s, ix := newSite(t)
	clean, _ := s.PerfumeMarkdown("dior-sauvage")
	spoiled, err := s.PerfumeMarkdownSpoiled(ix, "dior-sauvage", hostile)
	if err != nil {
		t.Fatal(err)
	}
	shape := func(md string) (heads []string, lines int, links int) {
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "## ") {
				heads = append(heads, l)
			}
		}
		return heads, strings.Count(md, "\n"), len(mdLink.FindAllString(md, -1))
	}
	h1, n1, l1 := shape(clean)
	h2, n2, l2 := shape(spoiled)
	if strings.Join(h1, "|") != strings.Join(h2, "|") || n1 != n2 || l1 != l2 {
		t.Errorf("the spoiled twin's shape differs: %q %d %d, want %q %d %d\n%s", h2, n2, l2, h1, n1, l1, spoiled)
	}
	if !strings.HasPrefix(spoiled, "# ") || strings.Contains(strings.ReplaceAll(spoiled, `\<`, ""), "<") {
		t.Errorf("the spoiled twin holds a tag or lost its title:\n%s", spoiled)
	}
}
