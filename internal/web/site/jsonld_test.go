package site_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

var ldRE = regexp.MustCompile(`<script type="application/ld\+json" nonce="[^"]+">([^<]*)</script>`)

// structuredData returns the JSON-LD blocks of a page by @type.
func structuredData(t *testing.T, body string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, m := range ldRE.FindAllStringSubmatch(body, -1) {
		var v map[string]any
		if err := json.Unmarshal([]byte(m[1]), &v); err != nil {
			t.Fatalf("JSON-LD is not JSON: %v\n%s", err, m[1])
		}
		if v["@context"] != "https://schema.org" {
			t.Errorf("@context %v", v["@context"])
		}
		typ, _ := v["@type"].(string)
		if out[typ] != nil {
			t.Errorf("two %s blocks", typ)
		}
		out[typ] = v
	}
	return out
}

// checkProductSnippet applies the rules Google documents for product
// snippets (developers.google.com/search/docs/appearance/structured-data/product-snippet)
// to a Product: a name; at least one of review, aggregateRating and offers
// (here: aggregateRating, never offers, since nothing is sold);
// aggregateRating with a numeric ratingValue within worstRating and
// bestRating and a positive ratingCount; brand as a Brand with a name;
// images as absolute URLs.
func checkProductSnippet(t *testing.T, p map[string]any) {
	t.Helper()
	if name, _ := p["name"].(string); name == "" {
		t.Error("Product without a name")
	}
	if _, ok := p["offers"]; ok {
		t.Error("Product with offers: we sell nothing and know no price")
	}
	if _, ok := p["review"]; ok {
		t.Error("Product with a review we do not have")
	}
	ar, ok := p["aggregateRating"].(map[string]any)
	if !ok {
		t.Fatal("Product without aggregateRating (nor review nor offers): not eligible, and claims a rich result")
	}
	if ar["@type"] != "AggregateRating" {
		t.Errorf("aggregateRating @type %v", ar["@type"])
	}
	value, ok1 := ar["ratingValue"].(float64)
	best, ok2 := ar["bestRating"].(float64)
	worst, ok3 := ar["worstRating"].(float64)
	count, ok4 := ar["ratingCount"].(float64)
	if !ok1 || !ok2 || !ok3 || !ok4 || best != 5 || worst != 1 || value < worst || value > best || count < 1 || count != float64(int(count)) {
		t.Errorf("aggregateRating %v breaks the rules", ar)
	}
	if b, _ := p["brand"].(map[string]any); b["@type"] != "Brand" || b["name"] == "" {
		t.Errorf("brand %v", p["brand"])
	}
	imgs, _ := p["image"].([]any)
	if len(imgs) == 0 {
		t.Error("no image")
	}
	for _, im := range imgs {
		if s, _ := im.(string); !strings.HasPrefix(s, "https://") {
			t.Errorf("image %v is not an absolute URL", im)
		}
	}
}

// checkBreadcrumbs applies the rules of BreadcrumbList: ListItems with
// positions 1, 2, ..., a name each, and the URL of every item (the last
// one's too, which is allowed).
func checkBreadcrumbs(t *testing.T, b map[string]any, want ...string) {
	t.Helper()
	items, _ := b["itemListElement"].([]any)
	if len(items) < 2 || len(items) != len(want) {
		t.Fatalf("breadcrumbs %v, want %v", items, want)
	}
	for i, it := range items {
		li := it.(map[string]any)
		if li["@type"] != "ListItem" || li["position"] != float64(i+1) || li["name"] == "" ||
			li["item"] != "https://fragrance.example"+want[i] {
			t.Errorf("breadcrumb %d: %v, want item %s", i+1, li, want[i])
		}
	}
}

// TestProductMarkupRated: a rated perfume's page has a Product whose
// aggregateRating is the API's rating and ratingCount, and breadcrumbs.
func TestProductMarkupRated(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for _, slug := range []string{"dior-sauvage", "creed-aventus"} {
		api := servetest.Decode(t, servetest.Do(t, h, "GET", "/api/perfumes/"+slug))
		ld := structuredData(t, servetest.Do(t, h, "GET", "/perfumes/"+slug).Body.String())
		p := ld["Product"]
		if p == nil {
			t.Fatalf("%s: no Product", slug)
		}
		checkProductSnippet(t, p)
		ar := p["aggregateRating"].(map[string]any)
		if ar["ratingValue"] != api["rating"] || ar["ratingCount"] != api["ratingCount"] {
			t.Errorf("%s: aggregateRating %v, API rating %v count %v", slug, ar, api["rating"], api["ratingCount"])
		}
		if p["name"] != api["name"] || p["brand"].(map[string]any)["name"] != api["brand"] ||
			p["url"] != "https://fragrance.example/perfumes/"+slug || p["image"].([]any)[0] != api["image"] {
			t.Errorf("%s: Product %v", slug, p)
		}
		checkBreadcrumbs(t, ld["BreadcrumbList"], "/", "/brands/"+api["brandSlug"].(string), "/perfumes/"+slug)
		if len(ld) != 2 {
			t.Errorf("%s: blocks %v", slug, ld)
		}
	}
}

// TestProductMarkupUnrated: a perfume without ratings has no Product
// markup at all (it could only claim a rich result falsely), nothing
// rated or offered anywhere, and still its breadcrumbs.
func TestProductMarkupUnrated(t *testing.T) {
	ix := servetest.Catalogue(t).Load()
	var unrated *index.Entry
	all := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()})
	for i := len(all.Entries) - 1; i >= 0; i-- {
		if e := all.Entries[i]; e.Rating == 0 && e.RatingCount == 0 {
			unrated = e
			break
		}
	}
	if unrated == nil {
		t.Fatal("the bundled catalogue has no unrated perfume")
	}
	h := servetest.NewServer(t, nil)
	rec := servetest.Do(t, h, "GET", "/perfumes/"+unrated.Slug())
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "No ratings yet") {
		t.Fatalf("%s = %d", unrated.Slug(), rec.Code)
	}
	ld := structuredData(t, body)
	if ld["Product"] != nil || len(ld) != 1 {
		t.Errorf("%s: unrated, but blocks %v", unrated.Slug(), ld)
	}
	for _, claim := range []string{"aggregateRating", "offers", `"review"`, `"Offer"`} {
		if strings.Contains(body, claim) {
			t.Errorf("%s: the page claims %s", unrated.Slug(), claim)
		}
	}
	checkBreadcrumbs(t, ld["BreadcrumbList"], "/", "/brands/"+unrated.BrandSlug(), "/perfumes/"+unrated.Slug())
}

// TestNoOffersAnywhere: no perfume page of a sample across the catalogue
// has offers, and every Product it has passes the snippet rules.
func TestNoOffersAnywhere(t *testing.T) {
	ix := servetest.Catalogue(t).Load()
	h := servetest.NewServer(t, nil)
	all := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()})
	for i := 0; i < len(all.Entries); i += len(all.Entries) / 40 {
		e := all.Entries[i]
		body := servetest.Do(t, h, "GET", "/perfumes/"+e.Slug()).Body.String()
		ld := structuredData(t, body)
		if p := ld["Product"]; p != nil {
			checkProductSnippet(t, p)
		} else if e.Rating >= 1 && e.RatingCount > 0 {
			t.Errorf("%s is rated but has no Product", e.Slug())
		}
		if strings.Contains(body, "offers") {
			t.Errorf("%s: offers", e.Slug())
		}
	}
}
