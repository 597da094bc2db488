package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestRecommendAnswersForATaste(t *testing.T) {
	h := newServer(t, nil)
	rec := do(t, h, "GET", "/api/perfumes/recommend?liked=creed-aventus,parfums-de-marly-layton&disliked=chanel-bleu-de-chanel&avoid=oud&limit=6")
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if cc, want := rec.Header().Get("Cache-Control"), do(t, h, "GET", "/api/perfumes/match?notes=rose").Header().Get("Cache-Control"); cc != want {
		t.Errorf("Cache-Control %q, want match's %q", cc, want)
	}
	m := decode(t, rec)
	var source []string
	for _, s := range m["source"].([]any) {
		source = append(source, s.(map[string]any)["slug"].(string))
	}
	if !slices.Equal(source, []string{"creed-aventus", "parfums-de-marly-layton"}) {
		t.Errorf("source %q", source)
	}
	data := m["data"].([]any)
	if len(data) != 6 || m["limit"].(float64) != 6 || m["page"].(float64) != 1 {
		t.Fatalf("%d items, limit %v page %v", len(data), m["limit"], m["page"])
	}
	brands := map[string]int{}
	for _, it := range data {
		item := it.(map[string]any)
		slug := item["slug"].(string)
		if slug == "creed-aventus" || slug == "parfums-de-marly-layton" || slug == "chanel-bleu-de-chanel" {
			t.Errorf("%s recommended", slug)
		}
		brands[item["brand"].(string)]++
		if item["imageTransparent"] == nil || item["image"] == nil {
			t.Errorf("%s lacks an image", slug)
		}
		reasons := item["reasons"].([]any)
		if len(reasons) == 0 {
			t.Errorf("%s has no reasons", slug)
			continue
		}
		why := reasons[0].(map[string]any)
		if by := why["perfume"].(map[string]any)["slug"]; by != "creed-aventus" && by != "parfums-de-marly-layton" {
			t.Errorf("%s: a reason names %v", slug, by)
		}
	}
	for b, n := range brands {
		if n > 3 {
			t.Errorf("%d of 6 from %s", n, b)
		}
	}
}

func TestRecommendRefusesBadTastes(t *testing.T) {
	h := newServer(t, nil)
	eleven := strings.Repeat("dior-sauvage,", 11)
	for target, want := range map[string]string{
		"/api/perfumes/recommend":                                       "liked",
		"/api/perfumes/recommend?liked=" + eleven:                       "liked",
		"/api/perfumes/recommend?liked=dior-sauvage&disliked=" + eleven: "disliked",
		"/api/perfumes/recommend?liked=dior-sauvage&gender=other":       "gender",
		"/api/perfumes/recommend?liked=dior-sauvage&avoid=vanillla":     "avoid",
		"/api/perfumes/recommend?liked=dior-sauvage&page=0":             "page",
	} {
		rec := do(t, h, "GET", target)
		errs, _ := decode(t, rec)["errors"].([]any)
		if rec.Code != http.StatusBadRequest || len(errs) == 0 || errs[0].(map[string]any)["parameter"] != want {
			t.Errorf("%s = %d %v, want a 400 naming %s", target, rec.Code, errs, want)
		}
	}
	rec := do(t, h, "GET", "/api/perfumes/recommend?liked=dior-sauvage,no-such-one&disliked=nor-this")
	body := rec.Body.String()
	if rec.Code != http.StatusNotFound || !strings.Contains(body, "no-such-one") || !strings.Contains(body, "nor-this") {
		t.Errorf("unknown slugs = %d %s, want a 404 naming both", rec.Code, body)
	}
}
