package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/limitertest"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// env is a Guard over fake stores, on a test clock.
type env struct {
	t       testing.TB
	clock   *testclock.Clock
	keys    *fakeKeys
	usage   *fakeUsage
	meter   *meter.Meter
	reg     *prometheus.Registry
	g       *access.Guard
	handler http.Handler
}

func newEnv(t testing.TB, cfg access.Config) *env {
	return newEnvWith(t, cfg, nil)
}

// newEnvWith is newEnv with a limiter made on the env's clock (nil: the
// Guard's own in-process one).
func newEnvWith(t testing.TB, cfg access.Config, limiter func(now func() time.Time) ratelimit.Limiter) *env {
	t.Helper()
	e := &env{t: t, clock: testclock.New(limitertest.Base), usage: &fakeUsage{}, reg: prometheus.NewRegistry()}
	e.keys = &fakeKeys{now: e.clock.Now}
	cfg.Now, cfg.Registerer = e.clock.Now, e.reg
	var lim ratelimit.Limiter
	if limiter != nil {
		lim = limiter(e.clock.Now)
	}
	e.meter = newTestMeter(t, e.usage, e.clock.Now)
	g, err := access.NewGuard(e.keys, e.meter, lim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	e.g = g
	e.handler = g.Wrap("perfumes", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _, _, _ := e.g.Caller(r.Context())
		w.Header().Set("X-Seen-Key", k.Prefix)
		w.Header().Set("X-Seen-Query", r.URL.RawQuery)
		w.Write([]byte("ok"))
	}))
	return e
}

func (e *env) issue(nk apikey.NewKey) (apikey.Key, string) {
	e.t.Helper()
	if nk.Tier == "" {
		nk.Tier = apikey.Free
	}
	k, secret, err := apikey.Issue(context.Background(), e.keys, nk)
	if err != nil {
		e.t.Fatal(err)
	}
	return k, secret
}

// get sends GET target with the given headers from ip.
func (e *env) get(target, ip string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = ip + ":40000"
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.handler.ServeHTTP(w, r)
	return w
}

// problemOf decodes a problem answer and checks its invariants.
func problemOf(t *testing.T, w *httptest.ResponseRecorder, status int, code string) map[string]any {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q", ct)
	}
	var p map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p["code"] != code || p["error"] != p["title"] || p["status"] != float64(status) {
		t.Fatalf("problem = %v, want code %s", p, code)
	}
	return p
}

func TestGuardKeySources(t *testing.T) {
	e := newEnv(t, access.Config{})
	k, secret := e.issue(apikey.NewKey{})
	_, other := e.issue(apikey.NewKey{})
	bad := secret[:len(secret)-1] + "x"
	if bad == secret { // one key in 62 ends in x
		bad = secret[:len(secret)-1] + "y"
	}
	for _, tc := range []struct {
		name    string
		target  string
		headers []string
		status  int
		code    string
	}{
		{"header", "/api/perfumes", []string{"X-API-Key", secret}, 200, ""},
		{"bearer", "/api/perfumes", []string{"Authorization", "Bearer " + secret}, 200, ""},
		{"bearer lower case", "/api/perfumes", []string{"Authorization", "bearer " + secret}, 200, ""},
		{"query", "/api/perfumes?api_key=" + secret, nil, 200, ""},
		{"header wins over query", "/api/perfumes?api_key=" + bad, []string{"X-API-Key", secret}, 200, ""},
		{"bad header loses to nothing", "/api/perfumes?api_key=" + secret, []string{"X-API-Key", bad}, 401, "invalid_api_key"},
		{"X-API-Key wins over bearer", "/api/perfumes", []string{"X-API-Key", secret, "Authorization", "Bearer " + other}, 200, ""},
		{"none", "/api/perfumes", nil, 401, "missing_api_key"},
		{"basic auth is no key", "/api/perfumes", []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "missing_api_key"},
		{"empty query value", "/api/perfumes?api_key=", nil, 401, "missing_api_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := e.get(tc.target, "192.0.2.10", tc.headers...)
			if tc.status != 200 {
				problemOf(t, w, tc.status, tc.code)
				return
			}
			if w.Code != 200 || w.Header().Get("X-Seen-Key") != k.Prefix {
				t.Fatalf("status %d, key seen %q; body %s", w.Code, w.Header().Get("X-Seen-Key"), w.Body)
			}
		})
	}
}

func TestGuardHidesKeyFromHandler(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{})
	w := e.get("/api/perfumes?q=dior&api_key="+secret+"&page=2", "192.0.2.10")
	if got := w.Header().Get("X-Seen-Query"); got != "q=dior&page=2" {
		t.Fatalf("handler saw query %q", got)
	}
	if got := access.RedactQuery("q=dior&api%5Fkey=" + secret); got != "q=dior&api_key=REDACTED" {
		t.Fatalf("RedactQuery = %q", got)
	}
}

func TestGuardKeyStates(t *testing.T) {
	e := newEnv(t, access.Config{})
	suspended, s1 := e.issue(apikey.NewKey{})
	revoked, s2 := e.issue(apikey.NewKey{})
	_, browser := e.issue(apikey.NewKey{Origins: []string{"https://app.example.com"}})
	e.keys.SetKeyState(context.Background(), suspended.Prefix, apikey.Suspended)
	e.keys.SetKeyState(context.Background(), revoked.Prefix, apikey.Revoked)
	unknown, _ := apikey.GenerateKey()
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
		code    string
	}{
		{"suspended", []string{"X-API-Key", s1}, 403, "suspended_api_key"},
		{"revoked", []string{"X-API-Key", s2}, 401, "revoked_api_key"},
		{"unknown", []string{"X-API-Key", unknown}, 401, "invalid_api_key"},
		{"malformed", []string{"X-API-Key", "hello"}, 401, "invalid_api_key"},
		{"origin not allowed", []string{"X-API-Key", browser, "Origin", "https://evil.example"}, 403, "origin_not_allowed"},
		{"origin allowed", []string{"X-API-Key", browser, "Origin", "https://APP.example.com"}, 200, ""},
		{"no origin header", []string{"X-API-Key", browser}, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := e.get("/api/perfumes", "192.0.2.11", tc.headers...)
			if tc.status == 200 {
				if w.Code != 200 {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
				return
			}
			problemOf(t, w, tc.status, tc.code)
			if w.Header().Get("RateLimit") != "" {
				t.Fatal("rate-limit headers on an unauthenticated answer")
			}
		})
	}
	if v := counterValue(t, e.reg, "fragrance_auth_failures_total", "invalid_api_key"); v != 2 {
		t.Fatalf("invalid_api_key failures = %v", v)
	}
}

// counterValue reads the child of a counter vector with these label values
// (in the order of the vector's labels).
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for i, l := range m.GetLabel() {
				if l.GetValue() != labels[i] {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func TestGuardFailsClosed(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: 10 * time.Second, StaleTTL: time.Minute})
	_, cached := e.issue(apikey.NewKey{})
	_, uncached := e.issue(apikey.NewKey{})
	if w := e.get("/api/perfumes", "192.0.2.12", "X-API-Key", cached); w.Code != 200 {
		t.Fatalf("warm-up: %d", w.Code)
	}
	e.keys.setErr(errors.New("database is locked"))
	e.clock.Add(30 * time.Second) // past the TTL, within the stale bound
	problemOf(t, e.get("/api/perfumes", "192.0.2.12", "X-API-Key", uncached), 503, "unavailable")
	if w := e.get("/api/perfumes", "192.0.2.12", "X-API-Key", cached); w.Code != 200 {
		t.Fatalf("cached key during the outage: %d %s", w.Code, w.Body)
	}
	before := e.keys.lookupCount()
	if w := e.get("/api/perfumes", "192.0.2.12", "X-API-Key", cached); w.Code != 200 || e.keys.lookupCount() != before {
		t.Fatalf("right after a failed lookup: %d, %d more lookups", w.Code, e.keys.lookupCount()-before)
	}
	e.clock.Add(time.Minute) // past the stale bound
	w := e.get("/api/perfumes", "192.0.2.12", "X-API-Key", cached)
	problemOf(t, w, 503, "unavailable")
	if w.Header().Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	e.keys.setErr(nil)
	if w := e.get("/api/perfumes", "192.0.2.12", "X-API-Key", cached); w.Code != 200 {
		t.Fatalf("after the outage: %d", w.Code)
	}
}

func TestGuardCachesKeys(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: 10 * time.Second})
	_, secret := e.issue(apikey.NewKey{})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.get("/api/perfumes", "192.0.2.13", "X-API-Key", secret)
		}()
	}
	wg.Wait()
	if n := e.keys.lookupCount(); n != 1 {
		t.Fatalf("store lookups = %d, want 1", n)
	}
	e.clock.Add(11 * time.Second)
	e.get("/api/perfumes", "192.0.2.13", "X-API-Key", secret)
	if n := e.keys.lookupCount(); n != 2 {
		t.Fatalf("store lookups after the TTL = %d, want 2", n)
	}
}

// TestGuardChecksumBeforeStore: the Guard looks its cache up by a key's
// hash before it checks the key's checksum, so a key of the right shape
// whose checksum is wrong (a typo in its last characters) must still be
// refused as invalid without asking the store, counted as a failed
// check, however often it is sent; and a valid key sent after it is
// served.
func TestGuardChecksumBeforeStore(t *testing.T) {
	e := newEnv(t, access.Config{FailedChecks: apikey.Limits{PerMinute: 3}})
	_, secret := e.issue(apikey.NewKey{})
	typo := secret[:len(secret)-1] + "a"
	if typo == secret {
		typo = secret[:len(secret)-1] + "b"
	}
	if _, ok := apikey.Hash(typo); !ok || apikey.ChecksumOK(typo) {
		t.Fatalf("the typo %q should be well shaped with a wrong checksum", typo)
	}
	before := e.keys.lookupCount()
	for i := 0; i < 3; i++ {
		problemOf(t, e.get("/api/perfumes", "192.0.2.31", "X-API-Key", typo), 401, "invalid_api_key")
	}
	if e.keys.lookupCount() != before {
		t.Fatal("a key with a wrong checksum reached the store")
	}
	// Three failed checks fill the address's window.
	problemOf(t, e.get("/api/perfumes", "192.0.2.31", "X-API-Key", typo), 429, "rate_limited")
	if w := e.get("/api/perfumes", "192.0.2.31", "X-API-Key", secret); w.Code != 200 {
		t.Fatalf("the valid key after the typos: %d %s", w.Code, w.Body)
	}
	// Cached now, the valid key is served from the cache, and its typo is
	// still refused.
	n := e.keys.lookupCount()
	if w := e.get("/api/perfumes", "192.0.2.32", "X-API-Key", secret); w.Code != 200 || e.keys.lookupCount() != n {
		t.Fatalf("the cached key: %d, lookups %d → %d", w.Code, n, e.keys.lookupCount())
	}
	problemOf(t, e.get("/api/perfumes", "192.0.2.32", "X-API-Key", typo), 401, "invalid_api_key")
}

func TestGuardSyncsChangedKeys(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: time.Hour, KeySyncInterval: 5 * time.Millisecond})
	k, secret := e.issue(apikey.NewKey{})
	if w := e.get("/api/perfumes", "192.0.2.14", "X-API-Key", secret); w.Code != 200 {
		t.Fatal(w.Code)
	}
	e.keys.SetKeyState(context.Background(), k.Prefix, apikey.Suspended)
	deadline := time.Now().Add(10 * time.Second)
	for e.get("/api/perfumes", "192.0.2.14", "X-API-Key", secret).Code != http.StatusForbidden {
		if time.Now().After(deadline) {
			t.Fatal("suspension never reached the cache")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestGuardLimitsFailedChecksPerIP: an IP that failed too many key checks
// is refused for every request whose key check fails (missing, malformed,
// unknown: 429, without asking the store for a malformed one), while a
// valid key from the same IP (a NAT, an untrusted proxy) is served on its
// own limits: one broken client must not lock out its neighbours.
func TestGuardLimitsFailedChecksPerIP(t *testing.T) {
	e := newEnv(t, access.Config{FailedChecks: apikey.Limits{PerMinute: 5}})
	_, secret := e.issue(apikey.NewKey{})
	_, tight := e.issue(apikey.NewKey{PerMinute: 2})
	unknown, _ := apikey.GenerateKey()
	const nat = "198.51.100.7"
	for i := 0; i < 5; i++ {
		problemOf(t, e.get("/api/perfumes", nat, "X-API-Key", unknown), 401, "invalid_api_key")
	}
	// The failures are refused now, whatever their kind.
	other, _ := apikey.GenerateKey()
	for _, h := range [][]string{{"X-API-Key", unknown}, {"X-API-Key", other}, {"X-API-Key", "fds_typo"}, nil} {
		w := e.get("/api/perfumes", nat, h...)
		p := problemOf(t, w, 429, "rate_limited")
		if p["title"] != "Rate limit exceeded" || w.Header().Get("Retry-After") != "60" || p["retryAfter"] != float64(60) {
			t.Fatalf("refused failure %v: %v, Retry-After %q", h, p, w.Header().Get("Retry-After"))
		}
		if vp, _ := p["violatedPolicies"].([]any); len(vp) != 1 || vp[0] != access.PolicyFailedChecks {
			t.Fatalf("violatedPolicies = %v", p["violatedPolicies"])
		}
		if w.Header().Get("RateLimit") != "" {
			t.Fatal("key rate-limit headers on a refused failure")
		}
	}
	before := e.keys.lookupCount()
	e.get("/api/perfumes", nat, "X-API-Key", "fds_typo")
	if e.keys.lookupCount() != before {
		t.Fatal("a malformed key from a refused IP reached the store")
	}
	// A valid key from the same IP is served, on its own windows, and the
	// failures cost it nothing.
	w := e.get("/api/perfumes", nat, "X-API-Key", secret)
	if w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") != "59" {
		t.Fatalf("valid key from the refused IP: %d, remaining %q: %s", w.Code, w.Header().Get("X-RateLimit-Remaining"), w.Body)
	}
	// ... and refused by its own limits only.
	for i := 0; i < 2; i++ {
		if w := e.get("/api/perfumes", nat, "X-API-Key", tight); w.Code != 200 {
			t.Fatalf("tight key, request %d: %d", i+1, w.Code)
		}
	}
	w = e.get("/api/perfumes", nat, "X-API-Key", tight)
	p := problemOf(t, w, 429, "rate_limited")
	if vp, _ := p["violatedPolicies"].([]any); len(vp) != 1 || vp[0] != "minute" || w.Header().Get("X-RateLimit-Limit") != "2" {
		t.Fatalf("tight key's own refusal: %v, limit header %q", p, w.Header().Get("X-RateLimit-Limit"))
	}
	// Another IP is unaffected.
	if w := e.get("/api/perfumes", "198.51.100.8", "X-API-Key", unknown); w.Code != 401 {
		t.Fatalf("other IP: %d", w.Code)
	}
	e.clock.Add(time.Minute)
	problemOf(t, e.get("/api/perfumes", nat, "X-API-Key", unknown), 401, "invalid_api_key")
	e.meter.Flush(context.Background())
	if kinds := e.usage.signalKinds(); len(kinds) != 1 || kinds[0] != usage.SignalFailedChecks {
		t.Fatalf("signals = %v", kinds)
	}
}

func TestGuardHeaders(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{})
	w := e.get("/api/perfumes", "192.0.2.15", "X-API-Key", secret)
	now := limitertest.Base.Unix()
	want := map[string]string{
		"RateLimit-Policy":      `"minute";q=60;w=60, "day";q=1000;w=86400`,
		"RateLimit":             `"minute";r=59;t=60, "day";r=999;t=86400`,
		"X-RateLimit-Limit":     "60",
		"X-RateLimit-Remaining": "59",
		"X-RateLimit-Reset":     strconv.FormatInt(now+60, 10),
	}
	for h, v := range want {
		if got := w.Header().Get(h); got != v {
			t.Errorf("%s = %q, want %q", h, got, v)
		}
	}
	e.clock.Add(37 * time.Second)
	w = e.get("/api/perfumes", "192.0.2.15", "X-API-Key", secret)
	if got := w.Header().Get("RateLimit"); got != `"minute";r=58;t=23, "day";r=998;t=86363` {
		t.Errorf("RateLimit later = %q", got)
	}
}

func TestGuardMinuteRefusal(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{})
	for i := 0; i < 60; i++ {
		e.get("/api/perfumes", "192.0.2.16", "X-API-Key", secret)
	}
	e.clock.Add(1500 * time.Millisecond)
	w := e.get("/api/perfumes", "192.0.2.16", "X-API-Key", secret)
	p := problemOf(t, w, 429, "rate_limited")
	if p["title"] != "Rate limit exceeded" || p["retryAfter"] != float64(59) || p["retryAfterMs"] != float64(58500) {
		t.Fatalf("body %v", p)
	}
	if v, _ := p["violatedPolicies"].([]any); len(v) != 1 || v[0] != "minute" {
		t.Fatalf("violatedPolicies %v", p["violatedPolicies"])
	}
	if _, ok := p["dailyRemaining"]; ok {
		t.Fatal("dailyRemaining on a minute refusal")
	}
	h := w.Header()
	if h.Get("Retry-After") != "59" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("RateLimit") != `"minute";r=0;t=59, "day";r=940;t=86399` {
		t.Fatalf("429 headers: %v", h)
	}
}

func TestGuardDailyRefusal(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{Tier: apikey.Enterprise, PerMinute: 1000, PerDay: 50})
	for i := 0; i < 50; i++ {
		if w := e.get("/api/perfumes", "192.0.2.17", "X-API-Key", secret); w.Code != 200 {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	e.clock.Add(time.Hour)
	w := e.get("/api/perfumes", "192.0.2.17", "X-API-Key", secret)
	p := problemOf(t, w, 429, "daily_limit_exceeded")
	if p["title"] != "Daily limit exceeded" || p["dailyRemaining"] != float64(0) || p["retryAfter"] != float64(23*3600) {
		t.Fatalf("body %v", p)
	}
	if w.Header().Get("X-RateLimit-Limit") != "50" || w.Header().Get("Retry-After") != strconv.Itoa(23*3600) {
		t.Fatalf("headers %v", w.Header())
	}
}

// TestGuardConcurrentFreeKey is the acceptance case through the HTTP layer.
func TestGuardConcurrentFreeKey(t *testing.T) {
	testConcurrentFreeKey(t, newEnv(t, access.Config{}))
}

func testConcurrentFreeKey(t *testing.T, e *env) {
	_, secret := e.issue(apikey.NewKey{})
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				switch e.get("/api/perfumes", "192.0.2.18", "X-API-Key", secret).Code {
				case 200:
					ok.Add(1)
				case 429:
					limited.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 60 || limited.Load() != 100 {
		t.Fatalf("admitted %d, limited %d; want 60 and 100", ok.Load(), limited.Load())
	}
}

func TestGuardFillsLogInfo(t *testing.T) {
	e := newEnv(t, access.Config{})
	k, secret := e.issue(apikey.NewKey{PerMinute: 1})
	for i, want := range []int{200, 429} {
		r := httptest.NewRequest("GET", "/api/perfumes?api_key="+secret, nil)
		r.RemoteAddr = "192.0.2.30:1234"
		li := &access.LogInfo{}
		ctx := context.WithValue(r.Context(), access.LogInfoKey, li)
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, r.WithContext(ctx))
		if w.Code != want || li.KeyPrefix != k.Prefix || li.ClientIP != "192.0.2.30" {
			t.Fatalf("request %d: status %d, log info %+v", i, w.Code, li)
		}
	}
}

func TestGuardKeysChangedSyncsAtOnce(t *testing.T) {
	// The periodic sync is an hour away: only the poke can bring the change.
	e := newEnv(t, access.Config{CacheTTL: time.Hour, KeySyncInterval: time.Hour})
	k, secret := e.issue(apikey.NewKey{})
	if w := e.get("/api/perfumes", "192.0.2.15", "X-API-Key", secret); w.Code != 200 {
		t.Fatal(w.Code)
	}
	e.keys.SetKeyState(context.Background(), k.Prefix, apikey.Revoked)
	e.g.KeysChanged()
	deadline := time.Now().Add(10 * time.Second)
	for e.get("/api/perfumes", "192.0.2.15", "X-API-Key", secret).Code != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("revocation never reached the cache after KeysChanged")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestGuardKeysChangedHere: a change this process made is seen by the very
// next request, with no wait (the admin dashboard suspends, then the key's
// next call is refused).
func TestGuardKeysChangedHere(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: time.Hour, KeySyncInterval: time.Hour})
	k, secret := e.issue(apikey.NewKey{})
	for _, step := range []struct {
		state apikey.State
		want  int
	}{{apikey.Active, 200}, {apikey.Suspended, http.StatusForbidden}, {apikey.Active, 200}, {apikey.Revoked, http.StatusUnauthorized}} {
		e.keys.SetKeyState(context.Background(), k.Prefix, step.state)
		e.g.KeysChangedHere()
		if w := e.get("/api/perfumes", "192.0.2.16", "X-API-Key", secret); w.Code != step.want {
			t.Fatalf("key %s: %d, want %d", step.state, w.Code, step.want)
		}
	}
}

// TestGuardRefusesExpiredKey: a key past its ExpiresAt (a replaced key
// whose grace period ended) is refused like a revoked one, at that instant,
// by the cached copy: no refresh and no store lookup is needed.
func TestGuardRefusesExpiredKey(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: 24 * time.Hour, StaleTTL: 48 * time.Hour, KeySyncInterval: time.Hour})
	k, secret := e.issue(apikey.NewKey{})
	if _, err := e.keys.SetKeyExpiry(context.Background(), k.Prefix, e.clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if w := e.get("/api/perfumes", "192.0.2.40", "X-API-Key", secret); w.Code != 200 {
		t.Fatalf("before its expiry: %d %s", w.Code, w.Body)
	}
	lookups := e.keys.lookupCount()
	e.clock.Add(time.Hour - time.Millisecond)
	if w := e.get("/api/perfumes", "192.0.2.40", "X-API-Key", secret); w.Code != 200 {
		t.Fatalf("a millisecond before its expiry: %d %s", w.Code, w.Body)
	}
	e.clock.Add(time.Millisecond)
	p := problemOf(t, e.get("/api/perfumes", "192.0.2.40", "X-API-Key", secret), 401, "revoked_api_key")
	if p["detail"] != "This API key has been revoked or has expired." {
		t.Fatalf("detail = %v", p["detail"])
	}
	if n := e.keys.lookupCount(); n != lookups {
		t.Fatalf("%d store lookups after the first; the cached copy should have answered", n-lookups)
	}
	// The refusal is metered against the key, as a revoked key's is, and
	// does not count as a failed key check of the client IP.
	if v := counterValue(t, e.reg, "fragrance_auth_failures_total", "revoked_api_key"); v != 1 {
		t.Fatalf("revoked_api_key failures = %v, want 1", v)
	}
	// Clearing the expiry (a zero time) brings the key back once the cache
	// hears of it.
	if _, err := e.keys.SetKeyExpiry(context.Background(), k.Prefix, time.Time{}); err != nil {
		t.Fatal(err)
	}
	e.g.KeysChanged()
	deadline := time.Now().Add(10 * time.Second)
	for e.get("/api/perfumes", "192.0.2.40", "X-API-Key", secret).Code != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the cleared expiry never reached the cache after KeysChanged")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestGuardExpiryReachesCache: an expiry set after the key was cached
// takes effect through the key sync, like a revocation.
func TestGuardExpiryReachesCache(t *testing.T) {
	e := newEnv(t, access.Config{CacheTTL: 24 * time.Hour, KeySyncInterval: time.Hour})
	k, secret := e.issue(apikey.NewKey{})
	if w := e.get("/api/perfumes", "192.0.2.41", "X-API-Key", secret); w.Code != 200 {
		t.Fatal(w.Code)
	}
	if _, err := e.keys.SetKeyExpiry(context.Background(), k.Prefix, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.g.KeysChanged()
	deadline := time.Now().Add(10 * time.Second)
	for e.get("/api/perfumes", "192.0.2.41", "X-API-Key", secret).Code != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the expiry never reached the cache after KeysChanged")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
