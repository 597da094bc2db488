package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestBrowseParametersFilterTheList sends each browse parameter alone and
// combined, and holds every item of the answer to what it asked.
func TestBrowseParametersFilterTheList(t *testing.T) {
	h := newServer(t, nil)
	tests := []struct {
		target string
		check  func(item map[string]any) bool
	}{
		{"/api/perfumes?gender=feminine", func(m map[string]any) bool { return m["gender"] == "feminine" }},
		{"/api/perfumes?gender=Masculine,unisex&sort=rating", func(m map[string]any) bool { return m["gender"] == "masculine" || m["gender"] == "unisex" }},
		{"/api/perfumes?accords=woody,vanilla", func(m map[string]any) bool { return hasAccord(m, "woody") && hasAccord(m, "vanilla") }},
		{"/api/perfumes?accords=citrus,-sweet&season=summer&time=day", func(m map[string]any) bool { return hasAccord(m, "citrus") && !hasAccord(m, "sweet") }},
		{"/api/perfumes?year=2015", func(m map[string]any) bool { return year(m) == 2015 }},
		{"/api/perfumes?year=2010-2012&sort=oldest", func(m map[string]any) bool { return year(m) >= 2010 && year(m) <= 2012 }},
		{"/api/perfumes?year=2020-&sort=newest", func(m map[string]any) bool { return year(m) >= 2020 }},
		{"/api/perfumes?year=-1950", func(m map[string]any) bool { return year(m) != 0 && year(m) <= 1950 }},
		{"/api/perfumes?minRating=4.3&brand=guerlain", func(m map[string]any) bool { return m["rating"].(float64) >= 4.3 && m["brand"] == "Guerlain" }},
		{"/api/perfumes?q=rose&gender=feminine&sort=name", func(m map[string]any) bool { return m["gender"] == "feminine" }},
		{"/api/perfumes?notes=Oud,-Rose&accords=oud&limit=50", func(m map[string]any) bool { return hasAccord(m, "oud") }},
	}
	for _, tt := range tests {
		rec := do(t, h, "GET", tt.target)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d\n%s", tt.target, rec.Code, rec.Body)
		}
		m := decode(t, rec)
		data := m["data"].([]any)
		if len(data) == 0 || m["total"].(float64) < float64(len(data)) {
			t.Errorf("GET %s: %d items of %v", tt.target, len(data), m["total"])
		}
		for _, it := range data {
			if item := it.(map[string]any); !tt.check(item) {
				t.Errorf("GET %s lists %s, which fails the filters", tt.target, item["slug"])
			}
		}
		if _, ok := m["facets"]; ok {
			t.Errorf("GET %s: facets not asked for, yet answered", tt.target)
		}
		if _, ok := m["missing"]; ok {
			t.Errorf("GET %s: missing answered without ids", tt.target)
		}
	}
}

func hasAccord(m map[string]any, name string) bool {
	for _, a := range m["accords"].([]any) {
		if strings.EqualFold(a.(map[string]any)["name"].(string), name) {
			return true
		}
	}
	return false
}

func year(m map[string]any) int {
	y, _ := m["year"].(float64)
	return int(y)
}

// TestBrowseSortHoldsAcrossPages reads two pages of a sorted list and
// checks the order over the page boundary, and that the pages share no
// perfume (the name and rating sorts, whose keys are folded and weighted,
// are held to the brute force in package index).
func TestBrowseSortHoldsAcrossPages(t *testing.T) {
	h := newServer(t, nil)
	for sort, before := range map[string]func(a, b map[string]any) bool{
		"newest": func(a, b map[string]any) bool { return year(b) == 0 || (year(a) != 0 && year(a) >= year(b)) },
		"oldest": func(a, b map[string]any) bool { return year(b) == 0 || (year(a) != 0 && year(a) <= year(b)) },
		"popular": func(a, b map[string]any) bool {
			return a["ratingCount"].(float64) >= b["ratingCount"].(float64)
		},
	} {
		var items []map[string]any
		for page := 1; page <= 2; page++ {
			m := decode(t, do(t, h, "GET", fmt.Sprintf("/api/perfumes?gender=unisex&accords=leather&sort=%s&limit=25&page=%d", sort, page)))
			for _, it := range m["data"].([]any) {
				items = append(items, it.(map[string]any))
			}
		}
		seen := map[any]bool{}
		for i, it := range items {
			if seen[it["slug"]] {
				t.Errorf("sort=%s lists %s twice", sort, it["slug"])
			}
			seen[it["slug"]] = true
			if i > 0 && !before(items[i-1], it) {
				t.Errorf("sort=%s: %s before %s", sort, items[i-1]["slug"], it["slug"])
			}
		}
	}
}

// TestBrowseBadValuesAreProblems holds each bad value to a 400 problem
// naming its parameter, with a suggestion where a name was misspelt.
func TestBrowseBadValuesAreProblems(t *testing.T) {
	h := newServer(t, nil)
	ids101 := strings.TrimSuffix(strings.Repeat("a,", 101), ",")
	tests := []struct{ target, param, part string }{
		{"/api/perfumes?gender=femenine", "gender", `did you mean "feminine"`},
		{"/api/perfumes?season=autumn", "season", "winter, spring, summer or fall"},
		{"/api/perfumes?time=noon", "time", "day or night"},
		{"/api/perfumes?sort=ratng", "sort", `did you mean "rating"`},
		{"/api/perfumes?sort=relevance", "sort", "popular, rating, newest, oldest or name"},
		{"/api/perfumes?year=20x5", "year", "must be a year"},
		{"/api/perfumes?year=2020-2010", "year", "after it ends"},
		{"/api/perfumes?year=-", "year", "must be a year"},
		{"/api/perfumes?year=12345", "year", "must be a year"},
		{"/api/perfumes?minRating=5.5", "minRating", "from 0 to 5"},
		{"/api/perfumes?minRating=abc", "minRating", "from 0 to 5"},
		{"/api/perfumes?accords=wodoy", "accords", `did you mean "woody"`},
		{"/api/perfumes?accords=-", "accords", "name is empty"},
		{"/api/perfumes?notes=-vanillla", "notes", `did you mean "Vanilla"`},
		{"/api/perfumes?facets=colour", "facets", `unknown facet "colour"`},
		{"/api/perfumes?ids=" + ids101, "ids", "at most 100"},
		{"/api/perfumes?ids=dior-sauvage&gender=masculine", "gender", "cannot be combined with ids"},
		{"/api/perfumes?ids=,", "ids", "at least one"},
		{"/api/perfumes?gender=feminine&gender=masculine", "gender", "more than once"},
	}
	for _, tt := range tests {
		rec := do(t, h, "GET", tt.target)
		if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/problem+json") {
			t.Errorf("GET %s = %d %s", tt.target, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if msg := paramMessage(t, decode(t, rec), tt.param); !strings.Contains(msg, tt.part) {
			t.Errorf("GET %s: %s says %q, want %q in it", tt.target, tt.param, msg, tt.part)
		}
	}
	// Every problem of a request comes in one answer, the catalogue's too.
	m := decode(t, do(t, h, "GET", "/api/perfumes?year=x&gender=femenine&accords=wodoy"))
	for _, p := range []string{"year", "gender", "accords"} {
		if paramMessage(t, m, p) == "" {
			t.Errorf("the answer lacks %s's problem: %v", p, m["errors"])
		}
	}
}

func paramMessage(t *testing.T, m map[string]any, param string) string {
	t.Helper()
	for _, e := range m["errors"].([]any) {
		if pe := e.(map[string]any); pe["parameter"] == param {
			return pe["message"].(string)
		}
	}
	return ""
}

func TestBrowseLookupAnswersInTheAskedOrder(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes?ids=creed-aventus,no-such-perfume,dior-sauvage,creed-aventus"))
	var slugs []string
	for _, it := range m["data"].([]any) {
		slugs = append(slugs, it.(map[string]any)["slug"].(string))
	}
	if !slices.Equal(slugs, []string{"creed-aventus", "dior-sauvage"}) {
		t.Errorf("data %v", slugs)
	}
	if fmt.Sprint(m["missing"]) != "[no-such-perfume]" || m["total"] != 2.0 || m["pages"] != 1.0 {
		t.Errorf("missing %v, total %v, pages %v", m["missing"], m["total"], m["pages"])
	}
	none := decode(t, do(t, h, "GET", "/api/perfumes?ids=nothing-here"))
	if len(none["data"].([]any)) != 0 || fmt.Sprint(none["missing"]) != "[nothing-here]" {
		t.Errorf("a lookup of nothing known: %v", none)
	}
}

func TestBrowseFacetsOnlyThoseAsked(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes?gender=masculine&accords=leather&facets=season,accords,year&limit=1"))
	f := m["facets"].(map[string]any)
	if len(f) != 3 || f["season"] == nil || f["accords"] == nil || f["year"] == nil {
		t.Fatalf("facets %v", f)
	}
	sum := 0.0
	for _, c := range f["year"].([]any) {
		sum += c.(map[string]any)["count"].(float64)
	}
	if sum > m["total"].(float64) || sum == 0 {
		t.Errorf("years count %v perfumes of %v", sum, m["total"])
	}
	top := f["accords"].([]any)[0].(map[string]any)
	if top["value"] != "leather" || top["count"] != m["total"] {
		t.Errorf("every perfume has leather, yet the accords facet starts %v (total %v)", top, m["total"])
	}
}

// TestBrowseAnswersAreCachedByEveryParameter asks twice for lists that
// differ only in a browse parameter: the answer cache must not serve one
// for the other.
func TestBrowseAnswersAreCachedByEveryParameter(t *testing.T) {
	h := newServer(t, nil)
	seen := map[string]string{}
	for _, target := range []string{
		"/api/perfumes?gender=feminine", "/api/perfumes?gender=masculine", "/api/perfumes?accords=woody",
		"/api/perfumes?accords=-woody", "/api/perfumes?notes=Rose", "/api/perfumes?notes=-Rose",
		"/api/perfumes?season=winter", "/api/perfumes?time=night", "/api/perfumes?year=2001",
		"/api/perfumes?minRating=4", "/api/perfumes?sort=name", "/api/perfumes?sort=newest",
		"/api/perfumes?facets=gender", "/api/perfumes?ids=dior-sauvage",
	} {
		for range 2 {
			body := do(t, h, "GET", target).Body.String()
			for other, b := range seen {
				if other != target && b == body {
					t.Errorf("%s answers as %s", target, other)
				}
			}
			if prev, ok := seen[target]; ok && prev != body {
				t.Errorf("%s answered twice differently", target)
			}
			seen[target] = body
		}
	}
}
