package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// TestKeyedAnswersArePrivate: an answer to a keyed request is the key's
// own (its rate-limit headers, its usage), so shared caches must not keep
// it: Cache-Control private (no-store for /api/usage) and Vary on the
// headers that carry the key, on an answer cache miss and on a hit alike;
// keyless answers keep their own caching.
func TestKeyedAnswersArePrivate(t *testing.T) {
	k := newKeyed(t, access.Config{})
	_, secret := k.issue(t, apikey.NewKey{Name: "app", Tier: apikey.Pro})
	h := k.server(t, nil)
	varies := func(vary []string, names ...string) bool {
		var got []string
		for _, v := range vary {
			for _, n := range strings.Split(v, ",") {
				got = append(got, strings.ToLower(strings.TrimSpace(n)))
			}
		}
		for _, n := range names {
			if !slices.Contains(got, strings.ToLower(n)) {
				return false
			}
		}
		return true
	}
	for _, c := range []struct{ target, cache string }{
		{"/api/perfumes?limit=3", "private"},
		{"/api/perfumes?limit=3", "private"}, // the answer cache's hit
		{"/api/perfumes/dior-sauvage", "private"},
		{"/api/perfumes/dior-sauvage", "private"},
		{"/api/brands?limit=2", "private"},
		{"/api/usage", "no-store"},
	} {
		for _, header := range []string{"X-API-Key", "Authorization"} {
			value := secret
			if header == "Authorization" {
				value = "Bearer " + secret
			}
			rec := do(t, h, "GET", c.target, header, value, "Origin", "https://app.example")
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d %s", c.target, rec.Code, rec.Body)
			}
			if got := rec.Header().Get("Cache-Control"); got != c.cache {
				t.Errorf("GET %s with %s: Cache-Control %q, want %q", c.target, header, got, c.cache)
			}
			if vary := rec.Header().Values("Vary"); !varies(vary, "X-API-Key", "Authorization") {
				t.Errorf("GET %s with %s: Vary %q, want X-API-Key and Authorization", c.target, header, vary)
			}
		}
	}
	for _, c := range []struct{ target, cache string }{
		{"/api/openapi.json", "public, max-age=300"},
		{"/api/search?q=rose", ""},
	} {
		rec := do(t, h, "GET", c.target)
		if rec.Code != 200 || rec.Header().Get("Cache-Control") != c.cache || varies(rec.Header().Values("Vary"), "X-API-Key") {
			t.Errorf("keyless GET %s: %d, Cache-Control %q, Vary %q; want it as it was (%q, no key in Vary)",
				c.target, rec.Code, rec.Header().Get("Cache-Control"), rec.Header().Values("Vary"), c.cache)
		}
	}
}
