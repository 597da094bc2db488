package api_test

import (
	"net/http"
	"testing"
)

// cacheCorpus is a request of every route, with each of its parameters
// varied one at a time: a parameter the answer cache forgot to key on
// would make two of these share an answer.
var cacheCorpus = []string{
	"/api/perfumes", "/api/perfumes?limit=3", "/api/perfumes?limit=4", "/api/perfumes?page=2&limit=3",
	"/api/perfumes?q=sauvage&limit=3", "/api/perfumes?q=sauvage+dior&limit=3", "/api/perfumes?q=sauvage&brand=dior&limit=3",
	"/api/perfumes?brand=chanel&limit=3", "/api/perfumes?brand=chanel&limit=3&page=2", "/api/perfumes?q=xyzzy",
	"/api/perfumes/dior-sauvage", "/api/perfumes/creed-aventus",
	"/api/perfumes/dior-sauvage/similar", "/api/perfumes/dior-sauvage/similar?limit=3", "/api/perfumes/creed-aventus/similar?limit=3",
	"/api/perfumes/creed-aventus/dupes", "/api/perfumes/creed-aventus/dupes?limit=4", "/api/perfumes/dior-sauvage/dupes?limit=4",
	"/api/perfumes/match?accords=woody", "/api/perfumes/match?accords=woody:40", "/api/perfumes/match?accords=woody:40,vanilla",
	"/api/perfumes/match?accords=woody&notes=rose", "/api/perfumes/match?accords=woody&notes=rose,oud",
	"/api/perfumes/match?accords=woody&gender=masculine", "/api/perfumes/match?accords=woody&gender=feminine",
	"/api/perfumes/match?accords=woody&season=winter", "/api/perfumes/match?accords=woody&season=summer",
	"/api/perfumes/match?accords=woody&time=day", "/api/perfumes/match?accords=woody&time=night",
	"/api/perfumes/match?accords=woody&page=2", "/api/perfumes/match?accords=woody&limit=5",
	"/api/brands", "/api/brands?q=dior", "/api/brands?q=chanel",
	"/api/notes", "/api/notes?limit=3", "/api/notes?limit=4",
	"/api/perfumers", "/api/perfumers/dominique-ropion", "/api/perfumers/dominique-ropion?page=2",
	"/api/perfumers/dominique-ropion?limit=3", "/api/perfumers/alberto-morillas?limit=3",
	"/api/accords", "/api/accords?search=wood", "/api/accords?search=wood&limit=2", "/api/accords?limit=2",
	"/api/perfumes/no-such", "/api/perfumes?limit=0",
}

// TestAnswerCacheChangesNothing serves the corpus twice over (the second
// time from the cache) with the answer cache on, and once with it off:
// every answer must be the same, byte for byte.
func TestAnswerCacheChangesNothing(t *testing.T) {
	cached, scrape := metricsServer(t, func(c *newConfig) { c.AnswerCacheMinCost = -1 }) // every answer kept, however cheap
	uncached := newServer(t, func(c *newConfig) { c.AnswerCacheMB = -1 })
	ok := 0
	for round := range 2 {
		for _, target := range cacheCorpus {
			got, want := do(t, cached, "GET", target), do(t, uncached, "GET", target)
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Fatalf("round %d, GET %s: cached %d %.200s\nuncached %d %.200s", round, target, got.Code, got.Body, want.Code, want.Body)
			}
			if want.Code == http.StatusOK && round == 1 && got.Header().Get("Content-Length") != want.Header().Get("Content-Length") {
				t.Errorf("GET %s: Content-Length %s cached, %s not", target, got.Header().Get("Content-Length"), want.Header().Get("Content-Length"))
			}
			if want.Code == http.StatusOK && round == 1 {
				ok++
			}
		}
	}
	if hits := scrape()["fragrance_answer_cache_hits_total"]; hits != float64(ok) {
		t.Errorf("%v hits, want %d: the second round must come from the cache", hits, ok)
	}
}
