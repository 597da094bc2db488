package access_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// fakeTiers is an in-memory apikey.TierStore whose failures tests switch on.
type fakeTiers struct {
	mu    sync.Mutex
	tiers apikey.Tiers
	err   error
	reads int
}

func (f *fakeTiers) TierLimits(context.Context) (apikey.Tiers, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	return apikey.Tiers{}.Complete(f.tiers), nil
}

func (f *fakeTiers) SetTierLimits(_ context.Context, t apikey.Tier, l apikey.Limits) error {
	if err := apikey.CheckTierLimits(t, l); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tiers == nil {
		f.tiers = apikey.Tiers{}
	}
	f.tiers[t] = l
	return nil
}

func (f *fakeTiers) SeedTierLimits(ctx context.Context, ts apikey.Tiers) (apikey.Tiers, error) {
	f.mu.Lock()
	f.tiers = f.tiers.Complete(ts)
	f.mu.Unlock()
	return f.TierLimits(ctx)
}

func (f *fakeTiers) setErr(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

func (f *fakeTiers) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// TestGuardTiersFromStore: the limits in force are the store's, read again
// on refresh, and a store that cannot answer leaves them as they were.
// (Before, a Guard knew only the flag's tiers it started with.)
func TestGuardTiersFromStore(t *testing.T) {
	store := &fakeTiers{}
	e := newEnv(t, access.Config{TierStore: store, TierRefresh: time.Hour})
	_, secret := e.issue(apikey.NewKey{Tier: apikey.Free})
	if w := e.get("/api/perfumes", "192.0.2.30", "X-API-Key", secret); w.Header().Get("RateLimit-Policy") != `"minute";q=60;w=60, "day";q=1000;w=86400` {
		t.Fatalf("policy before any tier change: %q", w.Header().Get("RateLimit-Policy"))
	}

	// `fragrance tiers set free --per-minute 2 --per-day 100`, then a refresh.
	if err := store.SetTierLimits(context.Background(), apikey.Free, apikey.Limits{PerMinute: 2, PerDay: 100}); err != nil {
		t.Fatal(err)
	}
	if err := e.g.RefreshTiers(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.g.Tiers()[apikey.Free]; got != (apikey.Limits{PerMinute: 2, PerDay: 100}) {
		t.Fatalf("free after refresh = %v", got)
	}
	if got := e.g.Tiers()[apikey.Pro]; got != apikey.DefaultTiers()[apikey.Pro] {
		t.Fatalf("pro, not in the store, = %v; want the start-up value", got)
	}
	w := e.get("/api/perfumes", "192.0.2.30", "X-API-Key", secret)
	if w.Code != 200 || w.Header().Get("RateLimit-Policy") != `"minute";q=2;w=60, "day";q=100;w=86400` {
		t.Fatalf("second request: %d, policy %q", w.Code, w.Header().Get("RateLimit-Policy"))
	}
	problemOf(t, e.get("/api/perfumes", "192.0.2.30", "X-API-Key", secret), 429, "rate_limited")

	// The store goes away: the limits in force stay.
	store.setErr(errors.New("store down"))
	if err := e.g.RefreshTiers(context.Background()); err == nil {
		t.Fatal("RefreshTiers with the store down: no error")
	}
	if got := e.g.Tiers()[apikey.Free]; got != (apikey.Limits{PerMinute: 2, PerDay: 100}) {
		t.Fatalf("free after a failed refresh = %v; want the limits in force kept", got)
	}
	store.setErr(nil)
	if err := e.g.RefreshTiers(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestGuardRefreshesTiersPeriodically: without being asked, the Guard
// reads the store again every TierRefresh.
func TestGuardRefreshesTiersPeriodically(t *testing.T) {
	store := &fakeTiers{}
	e := newEnv(t, access.Config{TierStore: store, TierRefresh: 5 * time.Millisecond})
	if err := store.SetTierLimits(context.Background(), apikey.Basic, apikey.Limits{PerMinute: 3, PerDay: 30}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for e.g.Tiers()[apikey.Basic] != (apikey.Limits{PerMinute: 3, PerDay: 30}) {
		if time.Now().After(deadline) {
			t.Fatalf("the Guard never read the store again (%d reads)", store.readCount())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGuardWithoutTierStore keeps the start-up tiers.
func TestGuardWithoutTierStore(t *testing.T) {
	tiers := apikey.DefaultTiers()
	tiers[apikey.Free] = apikey.Limits{PerMinute: 1, PerDay: 1}
	e := newEnv(t, access.Config{Tiers: tiers})
	if err := e.g.RefreshTiers(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.g.Tiers()[apikey.Free]; got != (apikey.Limits{PerMinute: 1, PerDay: 1}) {
		t.Fatalf("free = %v", got)
	}
}
