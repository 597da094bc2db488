package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestMatchDescriptionEchoesWhatItUnderstood(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes/match?q="+url.QueryEscape("vanilla tobacco for winter, not sweet, glorp")+"&limit=5"))
	f := m["filters"].(map[string]any)
	if got := strs(f["accords"]); !slices.Equal(got, []string{"vanilla", "tobacco"}) {
		t.Errorf("accords %q", got)
	}
	if f["season"] != "winter" || f["gender"] != nil || f["brand"] != nil {
		t.Errorf("season %v gender %v brand %v", f["season"], f["gender"], f["brand"])
	}
	if got := strs(f["excluded"]); !slices.Equal(got, []string{"sweet"}) {
		t.Errorf("excluded %q", got)
	}
	if got := strs(f["ignored"]); !slices.Equal(got, []string{"glorp"}) {
		t.Errorf("ignored %q", got)
	}
	data := m["data"].([]any)
	if len(data) != 5 || m["total"].(float64) < 5 {
		t.Fatalf("%d items of %v", len(data), m["total"])
	}
	if first := data[0].(map[string]any); first["matchScore"].(float64) != 100 {
		t.Errorf("first item %v scores %v, want 100 (every term met)", first["slug"], first["matchScore"])
	}
}

func TestMatchDescriptionLeadsWithWellKnownPerfumes(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes/match?q=vanilla+tobacco+for+winter&limit=10"))
	var slugs []string
	for _, it := range m["data"].([]any) {
		slugs = append(slugs, it.(map[string]any)["slug"].(string))
	}
	if !slices.Contains(slugs, "tom-ford-tobacco-vanille") {
		t.Errorf("top 10 %q lack Tobacco Vanille", slugs)
	}
}

func TestMatchParameterWinsOverDescription(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes/match?q=woody+for+winter+for+her&season=summer&limit=3"))
	f := m["filters"].(map[string]any)
	if f["season"] != "summer" || f["gender"] != "feminine" {
		t.Fatalf("season %v gender %v: want the parameter's summer and the text's feminine", f["season"], f["gender"])
	}
}

func TestMatchDescriptionUnderstandingNothingFindsNothing(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes/match?q=zzz+qqq"))
	if m["total"].(float64) != 0 || len(m["data"].([]any)) != 0 {
		t.Fatalf("total %v", m["total"])
	}
	if got := strs(m["filters"].(map[string]any)["ignored"]); !slices.Equal(got, []string{"zzz", "qqq"}) {
		t.Fatalf("ignored %q", got)
	}
}

func TestMatchExclusions(t *testing.T) {
	h := newServer(t, nil)
	all := decode(t, do(t, h, "GET", "/api/perfumes/match?notes=rose"))
	kept := decode(t, do(t, h, "GET", "/api/perfumes/match?notes=rose,-oud&accords=-sweet"))
	if !(kept["total"].(float64) < all["total"].(float64)) {
		t.Fatalf("total %v with exclusions, %v without", kept["total"], all["total"])
	}
	f := kept["filters"].(map[string]any)
	if got := strs(f["excluded"]); !slices.Equal(got, []string{"sweet", "Oud"}) {
		t.Errorf("excluded %q", got)
	}
	if got := strs(f["notes"]); !slices.Equal(got, []string{"Rose"}) {
		t.Errorf("notes %q", got)
	}
	if _, ok := all["filters"].(map[string]any)["excluded"]; ok {
		t.Error("a structured match without exclusions echoes excluded")
	}
}

func TestMatchSortPopular(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes/match?notes=rose,oud&sort=popular&limit=20"))
	prev := 101.0
	for _, it := range m["data"].([]any) {
		s := it.(map[string]any)["matchScore"].(float64)
		if s > prev {
			t.Fatalf("matchScore %v after %v: perfumes meeting more wishes come first", s, prev)
		}
		prev = s
	}
}

func TestMatchRefusesBadDescriptionParameters(t *testing.T) {
	h := newServer(t, nil)
	for target, param := range map[string]string{
		"/api/perfumes/match?q=" + strings.Repeat("a", 201):   "q",
		"/api/perfumes/match?notes=-":                         "notes",
		"/api/perfumes/match?accords=-woody:40":               "accords",
		"/api/perfumes/match?notes=rose&sort=cheapest":        "sort",
		"/api/perfumes/match?notes=-vanillla&gender=feminine": "notes",
		"/api/perfumes/match?notes=-oud":                      "query",
	} {
		rec := do(t, h, "GET", target)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s = %d, want 400", target, rec.Code)
			continue
		}
		errs, _ := decode(t, rec)["errors"].([]any)
		if len(errs) == 0 || errs[0].(map[string]any)["parameter"] != param {
			t.Errorf("%s: errors %v, want one naming %s", target, errs, param)
		}
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
