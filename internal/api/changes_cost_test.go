package api_test

import (
	"strconv"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// TestChangeFeedChargedBySize: a change feed page asked for with limit=N
// counts ⌈N/100⌉ requests against the key's windows, as its rate-limit
// headers show; a page that does not fit what is left is refused 429 and
// counts nothing. The charge is for the page size asked, not for what the
// page holds, so the feed here is a few tombstones: pages of the bundled
// catalogue's details cost seconds each under -race.
func TestChangeFeedChargedBySize(t *testing.T) {
	tiers := apikey.DefaultTiers()
	tiers[apikey.Free] = apikey.Limits{PerMinute: 25, PerDay: 1000}
	k := newKeyed(t, access.Config{Tiers: tiers})
	_, secret := k.issue(t, apikey.NewKey{Name: "walker", Tier: apikey.Free})
	feed := fixedFeed{{Seq: 1, ID: 1, Slug: "gone-one"}, {Seq: 2, ID: 2, Slug: "gone-two"}, {Seq: 3, ID: 3, Slug: "gone-three"}}
	h := k.server(t, func(c *newConfig) { c.Changes = feed })
	for i, c := range []struct {
		query     string
		status    int
		remaining int
	}{
		{"limit=1000", 200, 15}, // 10
		{"limit=250", 200, 12},  // 3
		{"limit=100", 200, 11},  // 1
		{"", 200, 10},           // the default page, 100: 1
		{"limit=1", 200, 9},     // 1
		{"limit=1000", 429, -1}, // 10 do not fit in 9
		{"limit=900", 200, 0},   // 9 do
		{"limit=1", 429, -1},
	} {
		rec := do(t, h, "GET", "/api/perfumes/changes?"+c.query, "X-API-Key", secret)
		if rec.Code != c.status {
			t.Fatalf("page %d (%s): %d, want %d: %.200s", i+1, c.query, rec.Code, c.status, rec.Body)
		}
		if c.remaining < 0 {
			continue
		}
		if got := rec.Header().Get("X-Ratelimit-Remaining"); got != strconv.Itoa(c.remaining) {
			t.Errorf("page %d (%s): X-RateLimit-Remaining %s, want %d", i+1, c.query, got, c.remaining)
		}
	}
	// Other endpoints still count one request a call.
	_, secret2 := k.issue(t, apikey.NewKey{Name: "other", Tier: apikey.Free})
	if rec := do(t, h, "GET", "/api/perfumes?limit=100", "X-API-Key", secret2); rec.Header().Get("X-Ratelimit-Remaining") != "24" {
		t.Errorf("a list page of 100: remaining %s, want 24", rec.Header().Get("X-Ratelimit-Remaining"))
	}
}
