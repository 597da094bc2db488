package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestEndpointsGolden pins the shape of every endpoint's answer.
func TestEndpointsGolden(t *testing.T) {
	h := newServer(t, nil)
	tests := []struct{ name, target string }{
		{"perfumes_list", "/api/perfumes?limit=2"},
		{"perfumes_search", "/api/perfumes?q=sauvage+dior&limit=2"},
		{"perfume_detail", "/api/perfumes/dior-sauvage"},
		{"perfume_similar", "/api/perfumes/dior-sauvage/similar?limit=3"},
		{"perfume_dupes", "/api/perfumes/creed-aventus/dupes?limit=3"},
		{"perfume_match", "/api/perfumes/match?accords=woody:40,vanilla&notes=Tonka+Bean&gender=masculine&season=winter&limit=3"},
		{"perfume_match_described", "/api/perfumes/match?q=vanilla+tobacco+for+winter,+no+oud&limit=3"},
		{"perfume_match_popular", "/api/perfumes/match?notes=rose,-oud&sort=popular&limit=3"},
		{"perfume_recommend", "/api/perfumes/recommend?liked=creed-aventus,dior-sauvage&avoid=oud&limit=3"},
		{"brands", "/api/brands?q=hermes"},
		{"notes", "/api/notes?limit=3"},
		{"perfumer_detail", "/api/perfumers/dominique-ropion?limit=2"},
		{"accords", "/api/accords?search=wood&limit=3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, h, "GET", tt.target)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d\n%s", tt.target, rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			golden(t, tt.name, rec.Body.Bytes())
		})
	}
}

func TestPerfumersList(t *testing.T) {
	m := decode(t, do(t, newServer(t, nil), "GET", "/api/perfumers"))
	data := m["data"].([]any)
	if len(data) < 100 || int(m["total"].(float64)) != len(data) {
		t.Fatalf("perfumers: %d items, total %v", len(data), m["total"])
	}
	first, second := data[0].(map[string]any), data[1].(map[string]any)
	if first["count"].(float64) < second["count"].(float64) {
		t.Errorf("perfumers not ordered by count: %v then %v", first, second)
	}
	for _, k := range []string{"name", "slug", "count"} {
		if _, ok := first[k]; !ok {
			t.Errorf("perfumer entry lacks %q: %v", k, first)
		}
	}
}

// TestDefaultsAndMaximums checks each paged endpoint's default limit and the
// clamp to its maximum, echoed as limit.
func TestDefaultsAndMaximums(t *testing.T) {
	h := newServer(t, nil)
	tests := []struct {
		target    string
		wantLimit int
		wantLen   int // -1: only check ≤ limit
	}{
		{"/api/perfumes", 20, 20},
		{"/api/perfumes?limit=1000", 100, 100},
		{"/api/perfumes?limit=100", 100, 100},
		{"/api/perfumes/dior-sauvage/similar", 10, 10},
		{"/api/perfumes/dior-sauvage/similar?limit=99", 20, 20},
		{"/api/perfumes/creed-aventus/dupes", 20, -1},
		{"/api/perfumes/creed-aventus/dupes?limit=500", 50, -1},
		{"/api/perfumes/match?accords=woody", 20, 20},
		{"/api/perfumes/match?accords=woody&limit=51", 50, 50},
		{"/api/accords", 50, 50},
		{"/api/accords?limit=101", 100, -1},
		{"/api/perfumers/dominique-ropion", 20, 20},
	}
	for _, tt := range tests {
		rec := do(t, h, "GET", tt.target)
		if rec.Code != 200 {
			t.Errorf("GET %s = %d %s", tt.target, rec.Code, rec.Body)
			continue
		}
		m := decode(t, rec)
		if strings.HasPrefix(tt.target, "/api/perfumers/") {
			m = m["perfumes"].(map[string]any)
		}
		if got := int(m["limit"].(float64)); got != tt.wantLimit {
			t.Errorf("GET %s: limit = %d, want %d", tt.target, got, tt.wantLimit)
		}
		n := len(m["data"].([]any))
		if (tt.wantLen >= 0 && n != tt.wantLen) || n > tt.wantLimit {
			t.Errorf("GET %s: %d items, want %d (limit %d)", tt.target, n, tt.wantLen, tt.wantLimit)
		}
	}
}

func TestPaging(t *testing.T) {
	h := newServer(t, nil)
	m := decode(t, do(t, h, "GET", "/api/perfumes?limit=100"))
	total := int(m["total"].(float64))
	if total < 37000 || int(m["pages"].(float64)) != (total+99)/100 || m["page"].(float64) != 1 {
		t.Fatalf("total %d pages %v page %v", total, m["pages"], m["page"])
	}
	first := m["data"].([]any)
	p2 := decode(t, do(t, h, "GET", "/api/perfumes?limit=50&page=2"))
	if p2["data"].([]any)[0].(map[string]any)["id"] != first[50].(map[string]any)["id"] {
		t.Error("page 2 of 50 does not continue page 1 of 100")
	}
	past := decode(t, do(t, h, "GET", "/api/perfumes?page=999999"))
	if len(past["data"].([]any)) != 0 || int(past["total"].(float64)) != total {
		t.Errorf("page past the end: %v", past)
	}
	// Without q: most rated first.
	a, b := first[0].(map[string]any), first[1].(map[string]any)
	if a["ratingCount"].(float64) < b["ratingCount"].(float64) {
		t.Errorf("list not ordered by rating count: %v, %v", a["ratingCount"], b["ratingCount"])
	}
	empty := decode(t, do(t, h, "GET", "/api/perfumes?brand=no-such-brand"))
	if len(empty["data"].([]any)) != 0 || empty["total"].(float64) != 0 {
		t.Errorf("unknown brand: %v", empty)
	}
	dior := decode(t, do(t, h, "GET", "/api/perfumes?brand=dior&limit=5"))
	for _, it := range dior["data"].([]any) {
		if it.(map[string]any)["brand"] != "Dior" {
			t.Errorf("brand=dior gave %v", it.(map[string]any)["brand"])
		}
	}
}

func TestDetailFields(t *testing.T) {
	m := decode(t, do(t, newServer(t, nil), "GET", "/api/perfumes/dior-sauvage"))
	for _, k := range []string{"id", "slug", "name", "brand", "year", "rating", "concentration", "gender", "description",
		"image", "imageTransparent", "imageTransparentAvailable", "buyUrl", "notes", "accords", "seasons", "dayNight",
		"similarPerfumes", "perfumers", "seasonRanking", "timeRanking", "popularity", "ratingCount", "longevity",
		"sillage", "priceTier", "family"} {
		if _, ok := m[k]; !ok {
			t.Errorf("detail lacks %q", k)
		}
	}
	if m["id"] != "dior-sauvage" || m["slug"] != "dior-sauvage" || m["brand"] != "Dior" {
		t.Errorf("id/slug/brand = %v %v %v", m["id"], m["slug"], m["brand"])
	}
	if m["image"] != "https://fragrance.example/img/perfume/31861.jpg" ||
		m["imageTransparent"] != "https://fragrance.example/img/perfume-nobg/31861.webp" ||
		m["buyUrl"] != "https://fragrance.example/goto/dior-sauvage" {
		t.Errorf("urls: %v %v %v", m["image"], m["imageTransparent"], m["buyUrl"])
	}
	notes := m["notes"].(map[string]any)
	for _, k := range []string{"top", "middle", "base", "unplaced"} {
		if _, ok := notes[k]; !ok {
			t.Errorf("notes lacks %q", k)
		}
	}
	if _, ok := notes["heart"]; ok {
		t.Error("notes uses heart")
	}
	if n := len(m["similarPerfumes"].([]any)); n != 5 {
		t.Errorf("similarPerfumes has %d items, want 5", n)
	}
}

func TestNotFound(t *testing.T) {
	h := newServer(t, nil)
	for _, target := range []string{
		"/api/perfumes/no-such-perfume", "/api/perfumes/no-such/similar", "/api/perfumes/no-such/dupes",
		"/api/perfumers/no-such-perfumer", "/api/nothing-here", "/api/perfumes/a/b/c", "/api/perfumes/a%2Fb",
	} {
		rec := do(t, h, "GET", target)
		if rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("GET %s = %d %q", target, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		m := decode(t, rec)
		if m["code"] != "not_found" || m["error"] != m["title"] || m["status"].(float64) != 404 {
			t.Errorf("GET %s body = %v", target, m)
		}
	}
}

func TestMethods(t *testing.T) {
	h := newServer(t, nil)
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		for _, target := range []string{"/api/perfumes", "/api/perfumes/dior-sauvage", "/api/nothing"} {
			rec := do(t, h, method, target)
			if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Errorf("%s %s = %d Allow %q", method, target, rec.Code, rec.Header().Get("Allow"))
				continue
			}
			if m := decode(t, rec); m["code"] != "method_not_allowed" || m["error"] == nil {
				t.Errorf("%s %s body = %v", method, target, m)
			}
		}
	}
	head := do(t, h, "HEAD", "/api/perfumes/dior-sauvage")
	get := do(t, h, "GET", "/api/perfumes/dior-sauvage")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != get.Header().Get("Content-Length") {
		t.Errorf("HEAD = %d, %d bytes, length %q vs %q", head.Code, head.Body.Len(),
			head.Header().Get("Content-Length"), get.Header().Get("Content-Length"))
	}
}
