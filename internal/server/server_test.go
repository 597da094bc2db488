package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

func TestCORS(t *testing.T) {
	h := servetest.NewServer(t, nil)
	pre := servetest.Do(t, h, "OPTIONS", "/api/perfumes", "Origin", "https://app.example", "Access-Control-Request-Method", "GET",
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
		rec := servetest.Do(t, h, "GET", target, "Origin", "https://app.example")
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
	if rec := servetest.Do(t, h, "GET", "/healthz"); rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS header outside /api")
	}
}

func TestCommonHeaders(t *testing.T) {
	h := servetest.NewServer(t, nil)
	for _, target := range []string{"/api/perfumes", "/api/nope", "/healthz", "/api/openapi.json"} {
		rec := servetest.Do(t, h, "GET", target)
		if rec.Header().Get("X-API-Version") != servetest.Version || len(rec.Header().Get("X-Request-Id")) < 16 {
			t.Errorf("GET %s: version %q id %q", target, rec.Header().Get("X-API-Version"), rec.Header().Get("X-Request-Id"))
		}
	}
	rec := servetest.Do(t, h, "GET", "/api/perfumes", "X-Request-Id", "proxy-id-123")
	if rec.Header().Get("X-Request-Id") != "proxy-id-123" {
		t.Errorf("incoming request id not kept: %q", rec.Header().Get("X-Request-Id"))
	}
	rec = servetest.Do(t, h, "GET", "/api/perfumes", "X-Request-Id", "bad id\x01")
	if rec.Header().Get("X-Request-Id") == "bad id\x01" {
		t.Error("unsafe request id echoed")
	}
}

func TestGoto(t *testing.T) {
	var clicked []int64
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.ShopURL = "https://shop.example/search?q={brand}+{name}&ref={slug}"
		c.Click = func(_ *http.Request, id int64) { clicked = append(clicked, id) }
	})
	rec := servetest.Do(t, h, "GET", "/goto/dior-sauvage")
	if rec.Code != 302 || rec.Header().Get("Location") != "https://shop.example/search?q=Dior+Sauvage&ref=dior-sauvage" {
		t.Fatalf("goto = %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if len(clicked) != 1 || clicked[0] != 31861 {
		t.Errorf("clicks = %v", clicked)
	}
	rec = servetest.Do(t, h, "GET", "/goto/no-such-perfume")
	if rec.Code != 404 || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("unknown goto = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestHealthz(t *testing.T) {
	rec := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/healthz")
	if rec.Code != 200 {
		t.Fatalf("healthz = %d", rec.Code)
	}
	if m := servetest.Decode(t, rec); m["status"] != "ok" || m["perfumes"].(float64) < 37000 {
		t.Errorf("healthz = %v", m)
	}
	notReady := servetest.NewServer(t, func(c *servetest.Config) { c.Catalogue = index.NewHolder(nil) })
	if rec := servetest.Do(t, notReady, "GET", "/healthz"); rec.Code != 503 {
		t.Errorf("healthz before load = %d", rec.Code)
	}
	if rec := servetest.Do(t, notReady, "GET", "/api/perfumes"); rec.Code != 503 || servetest.Decode(t, rec)["code"] != "unavailable" {
		t.Errorf("api before load = %d", rec.Code)
	}
}
