package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/limitertest"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// failingLimiter cannot decide.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, apikey.Limits) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("limiter down")
}

func (failingLimiter) AllowN(context.Context, string, apikey.Limits, int64) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("limiter down")
}

func (failingLimiter) Peek(context.Context, string, apikey.Limits) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("limiter down")
}

// TestLimitPerIP: each client IP has its own minute window on a keyless
// endpoint, answers carry its rate-limit headers, a full window answers
// the API's 429, and a limiter that cannot decide fails closed.
func TestLimitPerIP(t *testing.T) {
	clock := testclock.New(limitertest.Base)
	g, err := access.NewGuard(&fakeKeys{now: clock.Now}, newTestMeter(t, &fakeUsage{}, clock.Now), nil, access.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	h := g.LimitPerIP("search.site", 2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	get := func(h http.Handler, ip string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/api/search?q=x", nil)
		r.RemoteAddr = ip + ":1234"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i, want := range []int{200, 200, 429} {
		rec := get(h, "192.0.2.1")
		if rec.Code != want || rec.Header().Get("X-Ratelimit-Limit") != "2" {
			t.Fatalf("request %d = %d, headers %v", i+1, rec.Code, rec.Header())
		}
		if want == 429 {
			var body map[string]any
			json.Unmarshal(rec.Body.Bytes(), &body)
			if body["error"] != "Rate limit exceeded" || body["code"] != "rate_limited" || rec.Header().Get("Retry-After") == "" ||
				body["retryAfterMs"] == nil || len(body["violatedPolicies"].([]any)) != 1 {
				t.Errorf("429 = %s %v", rec.Body, rec.Header())
			}
		}
	}
	if rec := get(h, "192.0.2.2"); rec.Code != 200 {
		t.Errorf("another address = %d", rec.Code)
	}
	down, err := access.NewGuard(&fakeKeys{now: clock.Now}, newTestMeter(t, &fakeUsage{}, clock.Now), failingLimiter{}, access.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close(context.Background())
	if rec := get(down.LimitPerIP("search.site", 2, h), "192.0.2.3"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("limiter down = %d, want 503 (fail closed)", rec.Code)
	}
}

// TestIPv6LimitedByPrefix: an IPv6 client holds a whole /64, so the per-IP
// limits count the /64 (Config.IPv6Prefix), not each of its 2^64
// addresses: on a keyless endpoint and for failed key checks alike;
// IPv4 addresses are counted one by one.
func TestIPv6LimitedByPrefix(t *testing.T) {
	clock := testclock.New(limitertest.Base)
	newGuard := func(prefix int) *access.Guard {
		g, err := access.NewGuard(&fakeKeys{now: clock.Now}, newTestMeter(t, &fakeUsage{}, clock.Now), nil,
			access.Config{Now: clock.Now, IPv6Prefix: prefix, FailedChecks: apikey.Limits{PerMinute: 3}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close(context.Background()) })
		return g
	}
	get := func(h http.Handler, ip, key string) int {
		r := httptest.NewRequest("GET", "/api/search?q=x", nil)
		r.RemoteAddr = "[" + ip + "]:1234"
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	g := newGuard(0) // the default, /64
	h := g.LimitPerIP("search.site", 2, ok)
	for i, c := range []struct {
		ip   string
		want int
	}{
		{"2001:db8:0:7::1", 200},
		{"2001:db8:0:7:ffff:ffff:ffff:fffe", 200},
		{"2001:db8:0:7:1234::9", 429}, // the same /64
		{"2001:db8:0:8::1", 200},      // the next /64
		{"192.0.2.1", 200},
		{"192.0.2.2", 200},
	} {
		if got := get(h, c.ip, ""); got != c.want {
			t.Errorf("request %d from %s = %d, want %d", i+1, c.ip, got, c.want)
		}
	}
	// Failed key checks: the /64's window of 3 fills from three addresses.
	wrapped := g.Wrap("perfumes.list", ok)
	for i := range 3 {
		if got := get(wrapped, "2001:db8:0:9::"+string(rune('a'+i)), "fds_not-a-key"); got != 401 {
			t.Fatalf("failed check %d = %d, want 401", i+1, got)
		}
	}
	if got := get(wrapped, "2001:db8:0:9::ff", "fds_not-a-key"); got != 429 {
		t.Errorf("a fourth failed check from the same /64 = %d, want 429", got)
	}
	// A prefix of 128 counts each address.
	h = newGuard(128).LimitPerIP("search.site", 1, ok)
	if get(h, "2001:db8:0:7::1", "") != 200 || get(h, "2001:db8:0:7::2", "") != 200 {
		t.Errorf("with IPv6Prefix 128, two addresses of one /64 were not counted apart")
	}
}

// TestAddressKey: the id an address is limited under.
func TestAddressKey(t *testing.T) {
	for _, c := range []struct {
		ip   string
		bits int
		want string
	}{
		{"192.0.2.7", 64, "192.0.2.7"},
		{"::ffff:192.0.2.7", 64, "192.0.2.7"},
		{"2001:db8:0:7:1:2:3:4", 64, "2001:db8:0:7::/64"},
		{"2001:db8:0:7:1:2:3:4", 48, "2001:db8::/48"},
		{"2001:db8:0:7:1:2:3:4", 128, "2001:db8:0:7:1:2:3:4"},
		{"unknown", 64, "unknown"},
	} {
		if got := access.AddressKey(c.ip, c.bits); got != c.want {
			t.Errorf("AddressKey(%s, %d) = %s, want %s", c.ip, c.bits, got, c.want)
		}
	}
}

// TestFirstClick: a buy-link click counts once a client address (its /64
// for IPv6), perfume and 24 hours.
func TestFirstClick(t *testing.T) {
	clock := testclock.New(limitertest.Base)
	g, err := access.NewGuard(&fakeKeys{now: clock.Now}, newTestMeter(t, &fakeUsage{}, clock.Now), nil, access.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	ctx := context.Background()
	for i, c := range []struct {
		ip      string
		perfume int64
		want    bool
	}{
		{"192.0.2.1", 7, true},
		{"192.0.2.1", 7, false},
		{"192.0.2.1", 8, true},
		{"192.0.2.2", 7, true},
		{"2001:db8:0:1::1", 7, true},
		{"2001:db8:0:1::2", 7, false}, // the same /64
	} {
		if got := g.FirstClick(ctx, c.ip, c.perfume); got != c.want {
			t.Errorf("click %d (%s on %d) counted %v, want %v", i+1, c.ip, c.perfume, got, c.want)
		}
	}
	clock.Add(24*time.Hour + time.Second)
	if !g.FirstClick(ctx, "192.0.2.1", 7) {
		t.Error("a click a day later was not counted")
	}
	if rec := g.FirstClick(ctx, "192.0.2.9", 7); rec != true {
		t.Error("a new address was not counted")
	}
	down, err := access.NewGuard(&fakeKeys{now: clock.Now}, newTestMeter(t, &fakeUsage{}, clock.Now), failingLimiter{}, access.Config{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close(ctx)
	if down.FirstClick(ctx, "192.0.2.1", 7) {
		t.Error("a limiter that cannot decide counted a click")
	}
}

// TestLimitAddr: the address an Addr-keyed per-IP limit counts.
func TestLimitAddr(t *testing.T) {
	for _, c := range []struct {
		ip   string
		bits int
		want string
	}{
		{"192.0.2.7", 64, "192.0.2.7"},
		{"::ffff:192.0.2.7", 64, "192.0.2.7"},
		{"2001:db8:0:7:1:2:3:4", 64, "2001:db8:0:7::"},
		{"2001:db8:0:7:1:2:3:4", 0, "2001:db8:0:7::"},
		{"2001:db8:0:7:1:2:3:4", 128, "2001:db8:0:7:1:2:3:4"},
	} {
		if got := access.LimitAddr(netip.MustParseAddr(c.ip), c.bits).String(); got != c.want {
			t.Errorf("LimitAddr(%s, %d) = %s, want %s", c.ip, c.bits, got, c.want)
		}
	}
}
