package api_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestUsage: /api/usage reports the calling key, its limits, what is left
// now and its usage per day, counts not yet written included, with the
// API's conventions (charset, a repeated or bad parameter is a 400).
func TestUsage(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := testMeter(t, db, clock)
	g, err := access.NewGuard(db, m, nil, access.Config{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	k, secret, err := apikey.Issue(ctx, db, apikey.NewKey{Name: "my app", Tier: apikey.Basic})
	if err != nil {
		t.Fatal(err)
	}
	h := newServer(t, func(c *newConfig) { c.Guard, c.Caller, c.Usage = g, g, m })
	for range 4 {
		do(t, h, "GET", "/api/perfumes?limit=1", "X-API-Key", secret)
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	do(t, h, "GET", "/api/perfumes?limit=1", "X-API-Key", secret) // pending, not flushed
	rec := do(t, h, "GET", "/api/usage?days=3", "X-API-Key", secret)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" || rec.Header().Get("RateLimit") == "" {
		t.Fatalf("status %d, headers %v: %s", rec.Code, rec.Header(), rec.Body)
	}
	var got struct {
		Key struct {
			Prefix, Name, Tier string
		}
		Limits    apikey.Limits
		Remaining map[string]int64
		Usage     usage.Report
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Key.Prefix != k.Prefix || got.Key.Name != "my app" || got.Key.Tier != "basic" || got.Limits.PerMinute != 300 ||
		got.Remaining["minute"] != 294 || got.Remaining["day"] != 24994 {
		t.Fatalf("answer %+v", got)
	}
	if len(got.Usage.Days) != 3 || got.Usage.Today.Requests != 5 || got.Usage.Endpoints["perfumes.list"] != 5 || got.Usage.Today.Date != "2026-03-01" {
		t.Fatalf("usage %+v", got.Usage)
	}
	for _, target := range []string{"/api/usage?days=x", "/api/usage?days=0", "/api/usage?days=2&days=3"} {
		if rec := do(t, h, "GET", target, "X-API-Key", secret); rec.Code != 400 || decode(t, rec)["code"] != "invalid_parameter" {
			t.Errorf("GET %s = %d %s", target, rec.Code, rec.Body)
		}
	}
	rec = do(t, h, "GET", "/api/usage?days=1000", "X-API-Key", secret)
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got.Usage.Days) != usage.MaxReportDays {
		t.Errorf("days=1000: %d days, want the maximum %d", len(got.Usage.Days), usage.MaxReportDays)
	}
}

// countingUsage records the views and empty searches the API reports.
type countingUsage struct {
	mu    sync.Mutex
	views map[usage.ViewKind][]int64
	empty []string
}

func (c *countingUsage) Report(context.Context, string, int) (usage.Report, error) {
	return usage.Report{}, nil
}

func (c *countingUsage) View(id int64, kind usage.ViewKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.views[kind] = append(c.views[kind], id)
}

func (c *countingUsage) EmptySearch(q string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.empty = append(c.empty, q)
}

// TestViewsAndEmptySearchesCounted: every answer showing a perfume counts
// a view of its kind, and every search that finds nothing counts its folded
// query, whether the answer was made or taken from the cache.
func TestViewsAndEmptySearchesCounted(t *testing.T) {
	u := &countingUsage{views: map[usage.ViewKind][]int64{}}
	h := newServer(t, func(c *newConfig) { c.Usage = u })
	for range 2 {
		for _, target := range []string{"/api/perfumes/dior-sauvage", "/api/perfumes/dior-sauvage/similar",
			"/api/perfumes/creed-aventus/dupes?limit=3", "/api/perfumes?q=Zzzzqqqxx+Vvvw", "/api/perfumes?q=sauvage",
			"/api/perfumes/no-such-perfume"} {
			do(t, h, "GET", target)
		}
	}
	const sauvage, aventus = 31861, 9828
	if got := u.views[usage.ViewDetail]; len(got) != 2 || got[0] != sauvage {
		t.Errorf("detail views %v", got)
	}
	if got := u.views[usage.ViewSimilar]; len(got) != 2 || got[1] != sauvage {
		t.Errorf("similar views %v", got)
	}
	if got := u.views[usage.ViewDupes]; len(got) != 2 || got[0] != aventus {
		t.Errorf("dupes views %v", got)
	}
	if len(u.empty) != 2 || u.empty[0] != "zzzzqqqxx vvvw" {
		t.Errorf("empty searches %q", u.empty)
	}
}
