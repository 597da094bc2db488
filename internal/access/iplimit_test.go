package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

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
