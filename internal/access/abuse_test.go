package access_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// auditLog is an admin audit log in memory.
type auditLog struct {
	mu      sync.Mutex
	entries []admin.AuditEntry
	err     error
}

func (a *auditLog) append(_ context.Context, e admin.AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	a.entries = append(a.entries, e)
	return nil
}

func (a *auditLog) all() []admin.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]admin.AuditEntry(nil), a.entries...)
}

// walkEnv is an env whose Guard also wraps the perfume list and detail.
type walkEnv struct {
	*env
	list, detail http.Handler
}

func newWalkEnv(t *testing.T, cfg access.Config) *walkEnv {
	t.Helper()
	e := &walkEnv{env: newEnv(t, cfg)}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	e.list, e.detail = e.g.Wrap("perfumes.list", ok), e.g.Wrap("perfumes.detail", ok)
	return e
}

// send serves GET target by h with the key, a second after the last.
func (e *walkEnv) send(h http.Handler, target, secret string) *httptest.ResponseRecorder {
	e.clock.Add(time.Second)
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = "203.0.113.9:40000"
	r.Header.Set("X-API-Key", secret)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// page fetches the list's pages with the key; each must be served.
func (e *walkEnv) pages(secret string, from, to int) {
	e.t.Helper()
	for p := from; p <= to; p++ {
		if w := e.send(e.list, fmt.Sprintf("/api/perfumes?page=%d&limit=100", p), secret); w.Code != 200 {
			e.t.Fatalf("page %d: %d %s", p, w.Code, w.Body)
		}
	}
}

// details fetches details in slug order with the key; each must be served.
func (e *walkEnv) details(secret string, from, to int) {
	e.t.Helper()
	for i := from; i <= to; i++ {
		if w := e.send(e.detail, fmt.Sprintf("/api/perfumes/brand-%04d-perfume", i), secret); w.Code != 200 {
			e.t.Fatalf("detail %d: %d %s", i, w.Code, w.Body)
		}
	}
}

// signals flushes the meter and returns the signals stored.
func (e *walkEnv) signals() []usage.Signal {
	e.t.Helper()
	if err := e.meter.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	s, _ := e.usage.Signals(context.Background(), time.Time{}, 100)
	return s
}

func (e *walkEnv) state(prefix string) apikey.State {
	e.t.Helper()
	k, err := e.keys.KeyByPrefix(context.Background(), prefix)
	if err != nil {
		e.t.Fatal(err)
	}
	return k.State
}

// TestScrapingSignals: each walk raises its signal at its threshold, not
// below it, nor when its requests spread over more than the window.
func TestScrapingSignals(t *testing.T) {
	cfg := access.Config{Abuse: access.AbuseConfig{Window: time.Minute, PageWalk: 20, SlugWalk: 30}}
	for _, tc := range []struct {
		name string
		walk func(e *walkEnv, secret string, from, to int)
		kind string
		at   int
	}{
		{"pages", (*walkEnv).pages, access.SignalPageWalk, 20},
		{"slugs", (*walkEnv).details, access.SignalSlugWalk, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newWalkEnv(t, cfg)
			k, secret := e.issue(apikey.NewKey{Tier: apikey.Pro})
			tc.walk(e, secret, 1, tc.at-1)
			if s := e.signals(); len(s) != 0 {
				t.Fatalf("below the threshold: %v", s)
			}
			tc.walk(e, secret, tc.at, tc.at)
			s := e.signals()
			if len(s) != 1 || s[0].Kind != tc.kind || s[0].KeyPrefix != k.Prefix || s[0].Count != int64(tc.at) ||
				s[0].ClientIP != "203.0.113.9" || s[0].Window != time.Minute || !s[0].At.Equal(e.clock.Now()) {
				t.Fatalf("at the threshold: %+v", s)
			}
			if strings.Contains(s[0].Detail, "suspended") {
				t.Fatalf("detail %q: auto-suspend is off", s[0].Detail)
			}
			tc.walk(e, secret, tc.at+1, tc.at+5)
			if s := e.signals(); len(s) != 1 {
				t.Fatalf("raised again within the window: %v", s)
			}
			if e.state(k.Prefix) != apikey.Active {
				t.Fatal("auto-suspend is off by default, and the key was suspended")
			}
			if w := e.send(e.list, "/api/perfumes", secret); w.Code != 200 {
				t.Fatalf("after the signal: %d", w.Code)
			}

			// The threshold's worth of requests, slower than the window:
			// no walk.
			e = newWalkEnv(t, cfg)
			_, secret = e.issue(apikey.NewKey{Tier: apikey.Pro})
			tc.walk(e, secret, 1, tc.at/2)
			e.clock.Add(time.Minute)
			tc.walk(e, secret, tc.at/2+1, tc.at)
			if s := e.signals(); len(s) != 0 {
				t.Fatalf("a walk slower than the window: %v", s)
			}
		})
	}
}

// TestAutoSuspend: with its kind in AutoSuspend, a walk suspends its key
// at the threshold: the key is suspended in the store, the audit log has
// the system's entry, the signal says so, and the key's next request gets
// 403 suspended_api_key.
func TestAutoSuspend(t *testing.T) {
	audit := &auditLog{}
	// Keys cached for an hour, never synced: only the Guard's own update
	// can make the suspension felt.
	e := newWalkEnv(t, access.Config{Audit: audit.append, CacheTTL: time.Hour, KeySyncInterval: time.Hour,
		Abuse: access.AbuseConfig{PageWalk: 10, SlugWalk: 20, AutoSuspend: []string{access.SignalPageWalk}}})
	k, secret := e.issue(apikey.NewKey{Tier: apikey.Enterprise})
	e.details(secret, 1, 20) // a slug walk is only recorded
	e.pages(secret, 1, 9)
	if e.state(k.Prefix) != apikey.Active || len(audit.all()) != 0 {
		t.Fatal("suspended below the threshold")
	}
	e.pages(secret, 10, 10) // served: it was admitted before the walk was seen
	if got := e.state(k.Prefix); got != apikey.Suspended {
		t.Fatalf("state %s, want suspended", got)
	}
	entries := audit.all()
	if len(entries) != 1 {
		t.Fatalf("audit: %+v", entries)
	}
	a := entries[0]
	if a.Actor != "system" || a.Action != "key.suspend" || a.Target != k.Prefix ||
		a.IP != "203.0.113.9" || !a.At.Equal(e.clock.Now()) || !strings.Contains(a.Reason, "page_walk") || a.Detail != "active → suspended" {
		t.Fatalf("audit entry %+v", a)
	}
	s := e.signals()
	if len(s) != 2 || s[0].Kind != access.SignalSlugWalk || strings.Contains(s[0].Detail, "suspended") ||
		s[1].Kind != access.SignalPageWalk || !strings.Contains(s[1].Detail, "the key was suspended automatically") {
		t.Fatalf("signals %+v", s)
	}
	// At once on this replica, without waiting for the key sync.
	problemOf(t, e.send(e.list, "/api/perfumes?page=11", secret), 403, "suspended_api_key")
	problemOf(t, e.send(e.detail, "/api/perfumes/x", secret), 403, "suspended_api_key")
	if n := counterValue(t, e.reg, "fragrance_abuse_auto_suspensions_total", access.SignalPageWalk, "suspended"); n != 1 {
		t.Fatalf("auto-suspensions metric %v", n)
	}
}

// TestAutoSuspendLimitHits: a free key living at its limit is suspended; a
// paying one is not (its signal says why): refusals are its plan's to
// solve.
func TestAutoSuspendLimitHits(t *testing.T) {
	audit := &auditLog{}
	e := newWalkEnv(t, access.Config{Audit: audit.append,
		Abuse: access.AbuseConfig{LimitHits: 3, AutoSuspend: []string{usage.SignalLimitHits}}})
	free, freeSecret := e.issue(apikey.NewKey{Tier: apikey.Free, PerMinute: 1})
	pro, proSecret := e.issue(apikey.NewKey{Tier: apikey.Pro, PerMinute: 1})
	for _, secret := range []string{freeSecret, proSecret} {
		e.clock.Add(time.Minute)
		if w := e.send(e.list, "/api/perfumes", secret); w.Code != 200 {
			t.Fatalf("first request %d", w.Code)
		}
		for range 3 {
			problemOf(t, e.send(e.list, "/api/perfumes", secret), 429, "rate_limited")
		}
	}
	if e.state(free.Prefix) != apikey.Suspended || e.state(pro.Prefix) != apikey.Active {
		t.Fatalf("free %s, pro %s", e.state(free.Prefix), e.state(pro.Prefix))
	}
	if a := audit.all(); len(a) != 1 || a[0].Target != free.Prefix {
		t.Fatalf("audit %+v", a)
	}
	problemOf(t, e.send(e.list, "/api/perfumes", freeSecret), 403, "suspended_api_key")
	problemOf(t, e.send(e.list, "/api/perfumes", proSecret), 429, "rate_limited")
	details := map[string]string{}
	for _, s := range e.signals() {
		details[s.KeyPrefix] = s.Detail
	}
	if !strings.Contains(details[free.Prefix], "suspended automatically") || !strings.Contains(details[pro.Prefix], "not suspended automatically") {
		t.Fatalf("details %q", details)
	}
}

// TestAutoSuspendFailures: a store that cannot suspend leaves the key
// active and the signal says so; an audit log that cannot write leaves the
// key suspended (the log has it).
func TestAutoSuspendFailures(t *testing.T) {
	audit := &auditLog{err: errors.New("audit log down")}
	e := newWalkEnv(t, access.Config{Audit: audit.append,
		Abuse: access.AbuseConfig{PageWalk: 5, SlugWalk: 5, AutoSuspend: []string{access.SignalPageWalk, access.SignalSlugWalk}}})
	k, secret := e.issue(apikey.NewKey{})
	e.pages(secret, 1, 5)
	if e.state(k.Prefix) != apikey.Suspended {
		t.Fatal("the audit log's failure undid the suspension")
	}
	k2, secret2 := e.issue(apikey.NewKey{})
	e.details(secret2, 1, 4)
	e.keys.setErr(errors.New("store down"))
	e.details(secret2, 5, 5) // cached key: served while the store is down
	e.keys.setErr(nil)
	if e.state(k2.Prefix) != apikey.Active {
		t.Fatal("suspended while the store was down?")
	}
	byKey := map[string]string{}
	for _, s := range e.signals() {
		byKey[s.KeyPrefix] = s.Detail
	}
	if !strings.Contains(byKey[k.Prefix], "audit entry failed") || !strings.Contains(byKey[k2.Prefix], "automatic suspension failed") {
		t.Fatalf("details %q", byKey)
	}
}

// TestAutoSuspendConfig: the kinds are checked, and a suspension needs an
// audit log.
func TestAutoSuspendConfig(t *testing.T) {
	audit := (&auditLog{}).append
	for _, tc := range []struct {
		name  string
		cfg   access.Config
		error string
	}{
		{"no audit log", access.Config{Abuse: access.AbuseConfig{AutoSuspend: []string{"page_walk"}}}, "audit"},
		{"an IP's signal", access.Config{Audit: audit, Abuse: access.AbuseConfig{AutoSuspend: []string{"failed_checks"}}}, "client IP"},
		{"unknown", access.Config{Audit: audit, Abuse: access.AbuseConfig{AutoSuspend: []string{"scraping"}}}, "unknown"},
	} {
		_, err := access.NewGuard(&fakeKeys{now: time.Now}, newTestMeter(t, &fakeUsage{}, time.Now), nil, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	kinds, err := access.ParseSignalKinds(" Page_Walk, slug_walk,,page_walk ")
	if err != nil || strings.Join(kinds, ",") != "page_walk,slug_walk" {
		t.Fatalf("%v %v", kinds, err)
	}
	if kinds, err := access.ParseSignalKinds(""); err != nil || len(kinds) != 0 {
		t.Fatalf("empty: %v %v", kinds, err)
	}
	for _, bad := range []string{"failed_checks", "limit_hits,nope"} {
		if _, err := access.ParseSignalKinds(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
