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

func TestCORS(t *testing.T) {
	h := newServer(t, nil)
	pre := do(t, h, "OPTIONS", "/api/perfumes", "Origin", "https://app.example", "Access-Control-Request-Method", "GET",
		"Access-Control-Request-Headers", "X-API-Key")
	if pre.Code != 204 {
		t.Fatalf("preflight = %d", pre.Code)
	}
	want := map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
		"Access-Control-Allow-Headers": "X-API-Key, Authorization, Content-Type",
		"Access-Control-Max-Age":       "86400",
	}
	for k, v := range want {
		if got := pre.Header().Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	if pre.Header().Get("Access-Control-Allow-Credentials") != "" {
		t.Error("credentials allowed")
	}
	for _, target := range []string{"/api/perfumes?limit=1", "/api/perfumes/nope", "/api/perfumes?limit=x"} {
		rec := do(t, h, "GET", target, "Origin", "https://app.example")
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", target)
		}
		expose := rec.Header().Get("Access-Control-Expose-Headers")
		for _, hdr := range []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Remaining", "Retry-After", "X-Request-Id", "X-API-Version"} {
			if !strings.Contains(expose, hdr) {
				t.Errorf("GET %s: %s not exposed", target, hdr)
			}
		}
	}
	if rec := do(t, h, "GET", "/healthz"); rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS header outside /api")
	}
}

func TestCommonHeaders(t *testing.T) {
	h := newServer(t, nil)
	for _, target := range []string{"/api/perfumes", "/api/nope", "/healthz", "/api/openapi.json"} {
		rec := do(t, h, "GET", target)
		if rec.Header().Get("X-API-Version") != "1.3.0" || len(rec.Header().Get("X-Request-Id")) < 16 {
			t.Errorf("GET %s: version %q id %q", target, rec.Header().Get("X-API-Version"), rec.Header().Get("X-Request-Id"))
		}
	}
	rec := do(t, h, "GET", "/api/perfumes", "X-Request-Id", "proxy-id-123")
	if rec.Header().Get("X-Request-Id") != "proxy-id-123" {
		t.Errorf("incoming request id not kept: %q", rec.Header().Get("X-Request-Id"))
	}
	rec = do(t, h, "GET", "/api/perfumes", "X-Request-Id", "bad id\x01")
	if rec.Header().Get("X-Request-Id") == "bad id\x01" {
		t.Error("unsafe request id echoed")
	}
}

func TestGoto(t *testing.T) {
	var clicked []int64
	h := newServer(t, func(c *newConfig) {
		c.ShopURL = "https://shop.example/search?q={brand}+{name}&ref={slug}"
		c.Click = func(id int64) { clicked = append(clicked, id) }
	})
	rec := do(t, h, "GET", "/goto/dior-sauvage")
	if rec.Code != 302 || rec.Header().Get("Location") != "https://shop.example/search?q=Dior+Sauvage&ref=dior-sauvage" {
		t.Fatalf("goto = %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if len(clicked) != 1 || clicked[0] != 31861 {
		t.Errorf("clicks = %v", clicked)
	}
	rec = do(t, h, "GET", "/goto/no-such-perfume")
	if rec.Code != 404 || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("unknown goto = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestHealthz(t *testing.T) {
	rec := do(t, newServer(t, nil), "GET", "/healthz")
	if rec.Code != 200 {
		t.Fatalf("healthz = %d", rec.Code)
	}
	if m := decode(t, rec); m["status"] != "ok" || m["perfumes"].(float64) < 37000 {
		t.Errorf("healthz = %v", m)
	}
	notReady := newServer(t, func(c *newConfig) { c.Catalogue = emptyHolder() })
	if rec := do(t, notReady, "GET", "/healthz"); rec.Code != 503 {
		t.Errorf("healthz before load = %d", rec.Code)
	}
	if rec := do(t, notReady, "GET", "/api/perfumes"); rec.Code != 503 || decode(t, rec)["code"] != "unavailable" {
		t.Errorf("api before load = %d", rec.Code)
	}
}
