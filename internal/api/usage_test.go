package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestUsage: /api/usage reports the calling key, its limits, what is left
// now and its usage per day, counts not yet written included, with the
// API's conventions (charset, a repeated or bad parameter is a 400).
func TestUsage(t *testing.T) {
	ks := newKeyed(t, access.Config{})
	k, secret := ks.issue(t, apikey.NewKey{Name: "my app", Tier: apikey.Basic})
	h := ks.server(t, nil)
	for range 4 {
		do(t, h, "GET", "/api/perfumes?limit=1", "X-API-Key", secret)
	}
	if err := ks.meter.Flush(context.Background()); err != nil {
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
		got.Remaining["minute"] != 295 || got.Remaining["day"] != 24995 { // /api/usage spends nothing of them
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

// TestUsageOwnBudget: /api/usage answers while the key is rate-limited
// (when its developer needs it most), spends nothing of the key's windows
// (it peeks at them), and is limited on a small budget of its own, so it
// is no free door.
func TestUsageOwnBudget(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ks := newKeyed(t, access.Config{Now: func() time.Time { return now }, UsageBudget: apikey.Limits{PerMinute: 3, PerDay: 100}})
	_, secret := ks.issue(t, apikey.NewKey{Tier: apikey.Free, PerMinute: 2})
	h := ks.server(t, nil)
	for i, want := range []int{200, 200, 429} {
		if rec := do(t, h, "GET", "/api/perfumes?limit=1", "X-API-Key", secret); rec.Code != want {
			t.Fatalf("request %d = %d, want %d", i+1, rec.Code, want)
		}
	}
	for i := range 3 {
		rec := do(t, h, "GET", "/api/usage", "X-API-Key", secret)
		if rec.Code != 200 {
			t.Fatalf("usage %d while rate-limited = %d: %s", i+1, rec.Code, rec.Body)
		}
		m := decode(t, rec)
		if rem := m["remaining"].(map[string]any); rem["minute"] != 0.0 || rem["day"] != 998.0 {
			t.Fatalf("usage %d: remaining %v", i+1, rem)
		}
		if rec.Header().Get("X-RateLimit-Remaining") != "0" || rec.Header().Get("X-RateLimit-Limit") != "2" {
			t.Fatalf("usage %d: the key's windows not in the headers: %v", i+1, rec.Header())
		}
	}
	rec := do(t, h, "GET", "/api/usage", "X-API-Key", secret)
	p := decode(t, rec)
	if rec.Code != 429 || p["code"] != "rate_limited" || rec.Header().Get("Retry-After") != "60" {
		t.Fatalf("usage past its budget = %d %v", rec.Code, p)
	}
	if vp, _ := p["violatedPolicies"].([]any); len(vp) != 1 || vp[0] != access.PolicyUsageMinute {
		t.Fatalf("violatedPolicies = %v", p["violatedPolicies"])
	}
	// A minute later the key has its whole minute again: the usage
	// requests took none of it.
	now = now.Add(time.Minute)
	rec = do(t, h, "GET", "/api/usage", "X-API-Key", secret)
	if rec.Code != 200 || decode(t, rec)["remaining"].(map[string]any)["minute"] != 2.0 {
		t.Fatalf("usage a minute later = %d: %s", rec.Code, rec.Body)
	}
	for i := range 2 {
		if rec := do(t, h, "GET", "/api/perfumes?limit=1", "X-API-Key", secret); rec.Code != 200 {
			t.Fatalf("request %d a minute later = %d", i+1, rec.Code)
		}
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

// daysUsage records the days /api/usage asks the report for.
type daysUsage struct {
	countingUsage
	days []int
}

func (d *daysUsage) Report(_ context.Context, prefix string, days int) (usage.Report, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.days = append(d.days, days)
	return usage.Report{KeyPrefix: prefix}, nil
}

// oneCaller is a Caller that always names one key.
type oneCaller struct{}

func (oneCaller) Caller(context.Context) (apikey.Key, ratelimit.Decision, apikey.Limits, bool) {
	return apikey.Key{Prefix: "fds_fuzz0000", Tier: apikey.Free, State: apikey.Active}, ratelimit.Decision{}, apikey.Limits{PerMinute: 60}, true
}

// FuzzUsageDays: whatever days holds, /api/usage answers 400 (a problem
// about days) or 200 having asked for 1 to usage.MaxReportDays days: the
// number given, clamped, or 7 when it is absent.
func FuzzUsageDays(f *testing.F) {
	for _, s := range []string{"7", "1", "0", "-1", "90", "91", "1000", "99999999999999999999", "", " 3 ", "+5", "0x10", "1e3", "٣", "%ff", "3&days=4"} {
		f.Add(s)
	}
	u := &daysUsage{}
	// An empty catalogue: /api/usage does not read it, and each fuzzing
	// worker starts at once.
	empty := index.NewHolder(index.NewBuilder(index.Options{}, 0).Index())
	h := newServer(f, func(c *newConfig) { c.Catalogue, c.Caller, c.Usage = empty, oneCaller{}, u })
	f.Fuzz(func(t *testing.T, days string) {
		req := httptest.NewRequest("GET", "/api/usage", nil)
		req.URL.RawQuery = "days=" + days
		rec := httptest.NewRecorder()
		u.mu.Lock()
		u.days = u.days[:0]
		u.mu.Unlock()
		h.ServeHTTP(rec, req)
		u.mu.Lock()
		asked := slices.Clone(u.days)
		u.mu.Unlock()
		switch rec.Code {
		case http.StatusBadRequest:
			if len(asked) != 0 || !strings.Contains(rec.Body.String(), `"invalid_parameter"`) {
				t.Fatalf("days=%q: 400 %s after asking %v", days, rec.Body, asked)
			}
		case http.StatusOK:
			if len(asked) != 1 || asked[0] < 1 || asked[0] > usage.MaxReportDays {
				t.Fatalf("days=%q: asked the report for %v days", days, asked)
			}
			v, _ := url.ParseQuery(req.URL.RawQuery)
			want := 7 // the default
			if s := strings.TrimSpace(v.Get("days")); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil {
					n = usage.MaxReportDays // only an overflowing number of digits is accepted unparsed
				}
				want = min(n, usage.MaxReportDays)
			}
			if asked[0] != want {
				t.Fatalf("days=%q: asked for %d days, want %d", days, asked[0], want)
			}
		default:
			t.Fatalf("days=%q: %d %s", days, rec.Code, rec.Body)
		}
	})
}
