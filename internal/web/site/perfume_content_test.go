package site_test

import (
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/racedetect"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// hostile are texts that html/template escapes in every way it can: tags
// and quotes, the plus sign, NUL, invalid UTF-8 and noncharacters, unsafe
// schemes (whole and cased), bytes a URL percent-encodes, and escapes
// valid and not.
var hostile = []string{
	`<script>alert("x")</script>`,
	`"><img src=x onerror=alert(1)>`,
	"it's a+b & c\x00d",
	"javascript:alert(1)",
	"JavaScript:alert(1)",
	"data:text/html,<b>x</b>",
	"mailto:nose@example.com",
	"HTTPS://cdn.example/img/a b.webp?x=1&y=2+3#frag",
	"/perfumes/%41%zz%4",
	"%",
	"/notes/a:b",
	"a/b:c",
	"//evil.example/ x",
	"é ü 香水 \uFDD0 \uFFFE \xff\xfe",
	"back\\slash {braces} |pipe| ^caret^ `tick` ~tilde~ (paren)",
	"",
	"   ",
	"plain",
}

func newSite(t testing.TB) (*site.Site, *index.Index) {
	t.Helper()
	holder := servetest.Catalogue(t)
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	ground, err := web.New(web.Config{Catalogue: holder, BaseURL: servetest.BaseURL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := site.New(site.Config{Web: ground, Catalogue: holder, View: view.NewBuilder(servetest.BaseURL, nil, ref.Color)})
	if err != nil {
		t.Fatal(err)
	}
	return s, holder.Load()
}

// TestPerfumeContentMatchesTemplate: the perfume page's content, written
// by the Go generated from templates/perfume.html, is byte for byte what
// html/template renders from the template, for every 7th perfume of the
// bundled catalogue, and for pages whose every text is hostile.
func TestPerfumeContentMatchesTemplate(t *testing.T) {
	s, ix := newSite(t)
	es := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()}).Entries
	// Under -short, and under the race detector, which makes each page
	// many times slower to make, every 97th perfume: the plain run
	// compares the rest.
	step := 7
	if testing.Short() || racedetect.Enabled {
		step = 97
	}
	compared := 0
	for i := 0; i < len(es); i += step {
		slug := es[i].Slug()
		got, want, err := s.PerfumeContents(ix, slug, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: content differs from the template's\n%s", slug, firstDiff(got, want))
		}
		compared++
		if i%(70*step) == 0 {
			for k := range hostile {
				got, want, err := s.PerfumeContents(ix, slug, append(hostile[k:], hostile[:k]...))
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("%s with hostile texts (%d): content differs from the template's\n%s", slug, k, firstDiff(got, want))
				}
			}
		}
	}
	t.Logf("compared %d pages", compared)
	if compared < 2 {
		t.Fatalf("compared %d pages", compared)
	}
}

// firstDiff shows where two renderings part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-120, 0)
	return "got:  …" + strings.ReplaceAll(got[from:min(i+120, len(got))], "\n", "⏎") +
		"\nwant: …" + strings.ReplaceAll(want[from:min(i+120, len(want))], "\n", "⏎")
}
