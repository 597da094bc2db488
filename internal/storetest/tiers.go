package storetest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// RunTierStore runs the apikey.TierStore contract against stores made by
// open, which must return two handles (two connections, as two replicas or
// a replica and a command have) on one fresh, empty database.
func RunTierStore(t *testing.T, open func(t *testing.T) (apikey.TierStore, apikey.TierStore)) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s apikey.TierStore)
	}{
		{"EmptyUntilSeeded", testTiersEmpty},
		{"SeedKeepsStored", testTiersSeedKeepsStored},
		{"SetReplaces", testTiersSet},
		{"Invalid", testTiersInvalid},
		{"ConcurrentSeeds", testTiersConcurrentSeeds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := open(t)
			tc.fn(t, s)
		})
	}
	t.Run("SharedByHandles", func(t *testing.T) {
		a, b := open(t)
		testTiersShared(t, a, b)
	})
}

// testTiersShared is a replica (a) and `fragrance tiers set` (b) on one
// database: what one stores, the other reads, and seeding on a's next
// start leaves it alone.
func testTiersShared(t *testing.T, a, b apikey.TierStore) {
	ctx := context.Background()
	if _, err := a.SeedTierLimits(ctx, apikey.DefaultTiers()); err != nil {
		t.Fatal(err)
	}
	wantTiers(t, b, apikey.DefaultTiers())
	if err := b.SetTierLimits(ctx, apikey.Free, apikey.Limits{PerMinute: 5, PerDay: 10}); err != nil {
		t.Fatal(err)
	}
	want := apikey.DefaultTiers()
	want[apikey.Free] = apikey.Limits{PerMinute: 5, PerDay: 10}
	wantTiers(t, a, want)
	if got, err := a.SeedTierLimits(ctx, apikey.DefaultTiers()); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("seed after set = %v, %v; want %v", got, err, want)
	}
}

func wantTiers(t *testing.T, s apikey.TierStore, want apikey.Tiers) {
	t.Helper()
	got, err := s.TierLimits(context.Background())
	if err != nil {
		t.Fatalf("TierLimits: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TierLimits = %v, want %v", got, want)
	}
}

func testTiersEmpty(t *testing.T, s apikey.TierStore) {
	got, err := s.TierLimits(context.Background())
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("TierLimits of a new store = %v, %v; want an empty Tiers", got, err)
	}
}

func testTiersSeedKeepsStored(t *testing.T, s apikey.TierStore) {
	ctx := context.Background()
	first := apikey.Tiers{apikey.Free: {PerMinute: 5, PerDay: 10}}
	got, err := s.SeedTierLimits(ctx, first)
	if err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("first seed = %v, %v; want %v", got, err, first)
	}
	// A later seed (the next start, another flag value) fills only the
	// tiers still missing: what is stored wins.
	want := apikey.DefaultTiers()
	want[apikey.Free] = first[apikey.Free]
	got, err = s.SeedTierLimits(ctx, apikey.DefaultTiers())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("second seed = %v, %v; want %v", got, err, want)
	}
	again, err := s.SeedTierLimits(ctx, apikey.Tiers{apikey.Pro: {PerMinute: 1, PerDay: 1}})
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("third seed = %v, %v; want %v unchanged", again, err, want)
	}
	wantTiers(t, s, want)
}

func testTiersSet(t *testing.T, s apikey.TierStore) {
	ctx := context.Background()
	if _, err := s.SeedTierLimits(ctx, apikey.DefaultTiers()); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTierLimits(ctx, apikey.Basic, apikey.Limits{PerMinute: 7, PerDay: 700}); err != nil {
		t.Fatal(err)
	}
	want := apikey.DefaultTiers()
	want[apikey.Basic] = apikey.Limits{PerMinute: 7, PerDay: 700}
	wantTiers(t, s, want)
	// Set also works on a tier never seeded, and again on the same tier.
	fresh := apikey.Limits{PerMinute: 9_000, PerDay: 9_000_000}
	if err := s.SetTierLimits(ctx, apikey.Basic, fresh); err != nil {
		t.Fatal(err)
	}
	want[apikey.Basic] = fresh
	wantTiers(t, s, want)
}

func testTiersInvalid(t *testing.T, s apikey.TierStore) {
	ctx := context.Background()
	bad := []struct {
		tier apikey.Tier
		l    apikey.Limits
	}{
		{"gold", apikey.Limits{PerMinute: 1, PerDay: 1}},
		{"Free", apikey.Limits{PerMinute: 1, PerDay: 1}},
		{"", apikey.Limits{PerMinute: 1, PerDay: 1}},
		{apikey.Free, apikey.Limits{PerMinute: 0, PerDay: 1}},
		{apikey.Free, apikey.Limits{PerMinute: 1, PerDay: -1}},
	}
	for _, b := range bad {
		if err := s.SetTierLimits(ctx, b.tier, b.l); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("SetTierLimits(%q, %v) = %v, want ErrInvalid", b.tier, b.l, err)
		}
		if _, err := s.SeedTierLimits(ctx, apikey.Tiers{b.tier: b.l}); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("SeedTierLimits(%q: %v) = %v, want ErrInvalid", b.tier, b.l, err)
		}
	}
	wantTiers(t, s, apikey.Tiers{})
}

func testTiersConcurrentSeeds(t *testing.T, s apikey.TierStore) {
	// Replicas starting together with different flags: one seed wins for
	// each tier and every replica is told the same limits.
	const n = 6
	got := make([]apikey.Tiers, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := apikey.DefaultTiers()
			ts[apikey.Free] = apikey.Limits{PerMinute: int64(i + 1), PerDay: 100}
			got[i], errs[i] = s.SeedTierLimits(context.Background(), ts)
		}()
	}
	wg.Wait()
	final, err := s.TierLimits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if errs[i] != nil || !reflect.DeepEqual(got[i], final) {
			t.Errorf("seed %d = %v, %v; want what is stored, %v", i, got[i], errs[i], final)
		}
	}
}
