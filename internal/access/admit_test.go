package access_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// call is a Call of the key secret to "perfumes" from 192.0.2.40.
func call(secret string) access.Call {
	return access.Call{Endpoint: "perfumes", Key: secret, ClientIP: "192.0.2.40", Path: "/api/perfumes"}
}

// refusalOf checks that f refuses with status and code.
func refusalOf(t *testing.T, f *access.Refusal, status int, code string) {
	t.Helper()
	if f == nil {
		t.Fatalf("admitted, want %d %s", status, code)
	}
	if f.Status() != status || f.Problem.Code != code || f.Limited() != (status == http.StatusTooManyRequests) {
		t.Fatalf("refusal %d %s (limited %v), want %d %s", f.Status(), f.Problem.Code, f.Limited(), status, code)
	}
}

// TestAdmitWithoutHTTP: a call is admitted or refused by plain Go, no
// request: the admission carries the key and its windows' decision, and
// its outcome, reported with Done, is metered under the call's endpoint.
func TestAdmitWithoutHTTP(t *testing.T) {
	e := newEnv(t, access.Config{})
	k, secret := e.issue(apikey.NewKey{PerMinute: 2, PerDay: 100})
	ctx := context.Background()

	a, f := e.g.Admit(ctx, call(secret))
	if f != nil {
		t.Fatalf("refused: %d %s", f.Status(), f.Problem.Detail)
	}
	if a.Key.Prefix != k.Prefix || a.ClientIP != "192.0.2.40" || !a.Decision.Allowed || a.Decision.Minute.Remaining != 1 {
		t.Fatalf("admission %+v", a)
	}
	h := http.Header{}
	a.SetHeaders(h)
	if h.Get("X-Ratelimit-Remaining") != "1" || h.Get("Ratelimit-Policy") == "" {
		t.Errorf("admission headers %v", h)
	}
	e.clock.Add(30 * time.Millisecond)
	a.Done(http.StatusNotFound)

	a, _ = e.g.Admit(ctx, call(secret))
	a.Done(0) // nothing written: net/http's 200

	// The third call of the minute: a 429 with the key's windows, metered.
	_, f = e.g.Admit(ctx, call(secret))
	refusalOf(t, f, 429, problem.RateLimited)
	if f.RetryAfter <= 0 || f.Windows.Minute.Limit != 2 || f.Problem.Extra["retryAfter"] != f.RetryAfterSeconds() ||
		!slices.Equal(f.Problem.Extra["violatedPolicies"].([]string), []string{ratelimit.PolicyMinute}) {
		t.Errorf("429 refusal %+v %v", f, f.Problem.Extra)
	}
	h = http.Header{}
	f.SetHeaders(h)
	if h.Get("Retry-After") == "" || h.Get("X-Ratelimit-Remaining") != "0" {
		t.Errorf("429 headers %v", h)
	}

	if err := e.meter.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for class, want := range map[string]int64{"2xx": 1, "4xx": 1, usage.ClassRateLimited: 1} {
		got := e.usage.total(func(c usage.Count) bool {
			return c.KeyPrefix == k.Prefix && c.Endpoint == "perfumes" && c.StatusClass == class
		})
		if got != want {
			t.Errorf("%s metered %d times, want %d", class, got, want)
		}
	}
}

// TestAdmitRefusesKeys: each failed key check is a refusal with the
// contract's status and code, and no rate-limit headers.
func TestAdmitRefusesKeys(t *testing.T) {
	e := newEnv(t, access.Config{})
	ctx := context.Background()
	revokedKey, revoked := e.issue(apikey.NewKey{})
	if _, err := e.keys.SetKeyState(ctx, revokedKey.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	_, browser := e.issue(apikey.NewKey{Origins: []string{"https://shop.example"}})
	fromElsewhere := call(browser)
	fromElsewhere.Origin = "https://evil.example"
	fromShop := call(browser)
	fromShop.Origin = "https://shop.example"

	for _, tc := range []struct {
		name   string
		c      access.Call
		status int
		code   string
	}{
		{"no key", call(""), 401, problem.MissingAPIKey},
		{"malformed", call("fds_not-a-key"), 401, problem.InvalidAPIKey},
		{"revoked", call(revoked), 401, problem.RevokedAPIKey},
		{"another origin", fromElsewhere, 403, problem.OriginNotAllowed},
	} {
		_, f := e.g.Admit(ctx, tc.c)
		refusalOf(t, f, tc.status, tc.code)
		h := http.Header{}
		f.SetHeaders(h)
		if len(h) != 0 || f.RetryAfter != 0 {
			t.Errorf("%s: headers %v", tc.name, h)
		}
	}
	if _, f := e.g.Admit(ctx, fromShop); f != nil {
		t.Errorf("the allowed origin is refused: %s", f.Problem.Code)
	}
}

// TestAdmitPassChecksTheKeyOnce: the calls a checked request carries are
// counted against the key's windows and metered, each under its own
// endpoint, without the key being looked up again.
func TestAdmitPassChecksTheKeyOnce(t *testing.T) {
	e := newEnv(t, access.Config{})
	k, secret := e.issue(apikey.NewKey{PerMinute: 2})
	ctx := context.Background()
	p, f := e.g.Check(ctx, call(secret))
	if f != nil || p.Key().Prefix != k.Prefix {
		t.Fatalf("check: %v %+v", f, p.Key())
	}
	lookups := counterValue(t, e.reg, "fragrance_keycache_lookups_total", "hit") + counterValue(t, e.reg, "fragrance_keycache_lookups_total", "miss")
	for i, want := range []bool{true, true, false} {
		a, f := e.g.AdmitPass(ctx, p, "mcp.search")
		if (f == nil) != want {
			t.Fatalf("tool call %d admitted %v, want %v", i, f == nil, want)
		}
		if f == nil {
			a.Done(http.StatusOK)
		} else {
			refusalOf(t, f, 429, problem.RateLimited)
		}
	}
	after := counterValue(t, e.reg, "fragrance_keycache_lookups_total", "hit") + counterValue(t, e.reg, "fragrance_keycache_lookups_total", "miss")
	if after != lookups {
		t.Errorf("the key was looked up %v more times", after-lookups)
	}
	if err := e.meter.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.usage.total(func(c usage.Count) bool { return c.Endpoint == "mcp.search" }); n != 3 {
		t.Errorf("mcp.search metered %d times, want 3 (two admitted, one refused)", n)
	}
	if n := e.usage.total(func(c usage.Count) bool { return c.Endpoint == "perfumes" }); n != 0 {
		t.Errorf("the check itself was metered %d times", n)
	}
}

// TestAdmitUsageBudget: the usage report is counted against its own budget
// and peeks at the key's windows, which it reports as they stand.
func TestAdmitUsageBudget(t *testing.T) {
	e := newEnv(t, access.Config{UsageBudget: apikey.Limits{PerMinute: 1}})
	_, secret := e.issue(apikey.NewKey{PerMinute: 5})
	ctx := context.Background()
	a, f := e.g.AdmitUsage(ctx, call(secret))
	if f != nil || a.Decision.Minute.Remaining != 5 {
		t.Fatalf("usage: %v, remaining %d", f, a.Decision.Minute.Remaining)
	}
	_, f = e.g.AdmitUsage(ctx, call(secret))
	refusalOf(t, f, 429, problem.RateLimited)
	if vp := f.Problem.Extra["violatedPolicies"].([]string); !slices.Equal(vp, []string{access.PolicyUsageMinute}) || f.Windows.Minute.Remaining != 5 {
		t.Errorf("usage refusal: policies %v, the key's remaining %d", vp, f.Windows.Minute.Remaining)
	}
}

// TestAdmitAddress: a keyless call has its client IP's own window; the
// admission meters nothing, a full window refuses with 429 and its
// headers, and a limiter that cannot decide refuses with 503.
func TestAdmitAddress(t *testing.T) {
	e := newEnv(t, access.Config{})
	ctx := context.Background()
	from := func(ip string) access.Call { return access.Call{Endpoint: "search.site", ClientIP: ip} }
	for i := range 2 {
		a, f := e.g.AdmitAddress(ctx, from("192.0.2.50"), 2)
		if f != nil || a.Decision.Minute.Remaining != int64(1-i) || a.Key.Prefix != "" {
			t.Fatalf("call %d: %v %+v", i, f, a.Decision.Minute)
		}
		a.Done(http.StatusOK)
	}
	_, f := e.g.AdmitAddress(ctx, from("192.0.2.50"), 2)
	refusalOf(t, f, 429, problem.RateLimited)
	h := http.Header{}
	f.SetHeaders(h)
	if h.Get("Retry-After") == "" || h.Get("X-Ratelimit-Limit") != "2" {
		t.Errorf("429 headers %v", h)
	}
	if _, f := e.g.AdmitAddress(ctx, from("192.0.2.51"), 2); f != nil {
		t.Errorf("another address refused: %d", f.Status())
	}
	if err := e.meter.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.usage.total(func(usage.Count) bool { return true }); n != 0 {
		t.Errorf("keyless calls metered: %d", n)
	}

	down := newEnvWith(t, access.Config{}, func(func() time.Time) ratelimit.Limiter { return failingLimiter{} })
	_, f = down.g.AdmitAddress(ctx, from("192.0.2.52"), 2)
	refusalOf(t, f, 503, problem.Unavailable)
	if f.RetryAfterSeconds() != 5 {
		t.Errorf("503 Retry-After %d, want 5", f.RetryAfterSeconds())
	}
}

// TestTooMany: the refusal builder's 429 always says when to come back,
// and names the refused windows only when there are some.
func TestTooMany(t *testing.T) {
	f := access.TooMany("Too many.", 0)
	if f.Status() != 429 || f.RetryAfterSeconds() != 1 || f.Problem.Extra["retryAfterMs"] != int64(1) {
		t.Errorf("TooMany without a wait: %+v %v", f, f.Problem.Extra)
	}
	if _, ok := f.Problem.Extra["violatedPolicies"]; ok {
		t.Errorf("no window named, yet violatedPolicies %v", f.Problem.Extra)
	}
	f = access.TooMany("Too many.", 1500*time.Millisecond, ratelimit.PolicyMinute)
	if f.Problem.Extra["retryAfter"] != int64(2) || f.Problem.Extra["retryAfterMs"] != int64(1500) {
		t.Errorf("TooMany 1.5 s: %v", f.Problem.Extra)
	}
}
