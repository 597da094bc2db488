package access_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// fakeKeys is an in-memory apikey.Store whose failures tests switch on.
type fakeKeys struct {
	mu      sync.Mutex
	keys    []apikey.Key
	err     error // returned by every call while set
	lookups int
	now     func() time.Time
}

func (f *fakeKeys) setErr(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

func (f *fakeKeys) lookupCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lookups
}

func (f *fakeKeys) CreateKey(_ context.Context, k apikey.Key) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return apikey.Key{}, f.err
	}
	for _, o := range f.keys {
		if o.Prefix == k.Prefix || o.Hash == k.Hash {
			return apikey.Key{}, apikey.ErrKeyExists
		}
	}
	k.ID = int64(len(f.keys) + 1)
	k.CreatedAt, k.UpdatedAt = f.now(), f.now()
	f.keys = append(f.keys, k)
	return k, nil
}

func (f *fakeKeys) find(match func(apikey.Key) bool) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.err != nil {
		return apikey.Key{}, f.err
	}
	for _, k := range f.keys {
		if match(k) {
			return k, nil
		}
	}
	return apikey.Key{}, fmt.Errorf("fake: %w", catalog.ErrNotFound)
}

func (f *fakeKeys) KeyByHash(_ context.Context, hash string) (apikey.Key, error) {
	return f.find(func(k apikey.Key) bool { return k.Hash == hash })
}

func (f *fakeKeys) KeyByPrefix(_ context.Context, prefix string) (apikey.Key, error) {
	return f.find(func(k apikey.Key) bool { return k.Prefix == prefix })
}

func (f *fakeKeys) ListKeys(context.Context) ([]apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apikey.Key(nil), f.keys...), f.err
}

func (f *fakeKeys) update(prefix string, change func(*apikey.Key)) (apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return apikey.Key{}, f.err
	}
	for i := range f.keys {
		if f.keys[i].Prefix == prefix {
			change(&f.keys[i])
			f.keys[i].UpdatedAt = f.now()
			return f.keys[i], nil
		}
	}
	return apikey.Key{}, catalog.ErrNotFound
}

func (f *fakeKeys) SetKeyState(_ context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	return f.update(prefix, func(k *apikey.Key) { k.State = s })
}

func (f *fakeKeys) SetKeyTier(_ context.Context, prefix string, t apikey.Tier) (apikey.Key, error) {
	return f.update(prefix, func(k *apikey.Key) { k.Tier = t })
}

func (f *fakeKeys) SetKeyLimits(_ context.Context, prefix string, m, d int64) (apikey.Key, error) {
	return f.update(prefix, func(k *apikey.Key) { k.PerMinute, k.PerDay = m, d })
}

func (f *fakeKeys) SetKeyExpiry(_ context.Context, prefix string, at time.Time) (apikey.Key, error) {
	return f.update(prefix, func(k *apikey.Key) { k.ExpiresAt = at })
}

func (f *fakeKeys) KeysChangedSince(_ context.Context, since time.Time) ([]apikey.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []apikey.Key
	for _, k := range f.keys {
		if !k.UpdatedAt.Before(since) {
			out = append(out, k)
		}
	}
	return out, nil
}

// fakeUsage is an in-memory usage.Store that can fail its next writes.
type fakeUsage struct {
	mu       sync.Mutex
	hourly   []usage.Count
	clicks   []usage.Click
	signals  []usage.Signal
	failNext int
}

func (f *fakeUsage) RecordUsage(_ context.Context, b usage.Batch) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failNext > 0 {
		f.failNext--
		return fmt.Errorf("fake: disk full: %w", catalog.ErrUnavailable)
	}
	f.hourly = append(f.hourly, b.Hourly...)
	f.clicks = append(f.clicks, b.Clicks...)
	return nil
}

// total sums the stored requests matching the filter.
func (f *fakeUsage) total(match func(usage.Count) bool) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, c := range f.hourly {
		if match(c) {
			n += c.Count
		}
	}
	return n
}

func (f *fakeUsage) DailyUsage(_ context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []usage.Count
	for _, c := range f.hourly {
		day := c.Start.Truncate(24 * time.Hour)
		if (prefix == "" || c.KeyPrefix == prefix) && !day.Before(from) && day.Before(to) {
			c.Start = day
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeUsage) HourlyUsage(context.Context, string, time.Time, time.Time) ([]usage.Count, error) {
	return nil, nil
}

func (f *fakeUsage) DailyClicks(context.Context, time.Time, time.Time) ([]usage.Click, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]usage.Click(nil), f.clicks...), nil
}

func (f *fakeUsage) PruneHourlyUsage(context.Context, time.Time) (int64, error) { return 0, nil }

// HourlyLatency returns the latency rows recorded for [from, to), unmerged,
// in the order they came.
// The analytics reads: the Guard never reads them (the meter's and the
// stores' tests do).
func (f *fakeUsage) HourlyLatency(context.Context, time.Time, time.Time) ([]usage.Latency, error) {
	return nil, nil
}

func (f *fakeUsage) TopViewed(context.Context, time.Time, time.Time, int) ([]usage.PerfumeViews, error) {
	return nil, nil
}

func (f *fakeUsage) EmptySearches(context.Context, time.Time, time.Time, int) ([]usage.Search, error) {
	return nil, nil
}

func (f *fakeUsage) RecordSignals(_ context.Context, s []usage.Signal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failNext > 0 {
		f.failNext--
		return fmt.Errorf("fake: %w", catalog.ErrUnavailable)
	}
	f.signals = append(f.signals, s...)
	return nil
}

func (f *fakeUsage) Signals(context.Context, time.Time, int) ([]usage.Signal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]usage.Signal(nil), f.signals...), nil
}

func (f *fakeUsage) signalKinds() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.signals {
		out = append(out, s.Kind)
	}
	return out
}

// newTestMeter is a meter over store on clock now, never flushing by
// itself: tests flush it when they want the store to see the counts.
func newTestMeter(t testing.TB, store usage.Store, now func() time.Time) *meter.Meter {
	t.Helper()
	m, err := meter.New(store, meter.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
