package access_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// fakeKeys is an in-memory KeyStore whose failures tests switch on.
type fakeKeys struct {
	mu      sync.Mutex
	keys    []access.Key
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

func (f *fakeKeys) CreateKey(_ context.Context, k access.Key) (access.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return access.Key{}, f.err
	}
	for _, o := range f.keys {
		if o.Prefix == k.Prefix || o.Hash == k.Hash {
			return access.Key{}, access.ErrKeyExists
		}
	}
	k.ID = int64(len(f.keys) + 1)
	k.CreatedAt, k.UpdatedAt = f.now(), f.now()
	f.keys = append(f.keys, k)
	return k, nil
}

func (f *fakeKeys) find(match func(access.Key) bool) (access.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.err != nil {
		return access.Key{}, f.err
	}
	for _, k := range f.keys {
		if match(k) {
			return k, nil
		}
	}
	return access.Key{}, fmt.Errorf("fake: %w", catalog.ErrNotFound)
}

func (f *fakeKeys) KeyByHash(_ context.Context, hash string) (access.Key, error) {
	return f.find(func(k access.Key) bool { return k.Hash == hash })
}

func (f *fakeKeys) KeyByPrefix(_ context.Context, prefix string) (access.Key, error) {
	return f.find(func(k access.Key) bool { return k.Prefix == prefix })
}

func (f *fakeKeys) ListKeys(context.Context) ([]access.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]access.Key(nil), f.keys...), f.err
}

func (f *fakeKeys) update(prefix string, change func(*access.Key)) (access.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return access.Key{}, f.err
	}
	for i := range f.keys {
		if f.keys[i].Prefix == prefix {
			change(&f.keys[i])
			f.keys[i].UpdatedAt = f.now()
			return f.keys[i], nil
		}
	}
	return access.Key{}, catalog.ErrNotFound
}

func (f *fakeKeys) SetKeyState(_ context.Context, prefix string, s access.State) (access.Key, error) {
	return f.update(prefix, func(k *access.Key) { k.State = s })
}

func (f *fakeKeys) SetKeyLimits(_ context.Context, prefix string, m, d int64) (access.Key, error) {
	return f.update(prefix, func(k *access.Key) { k.PerMinute, k.PerDay = m, d })
}

func (f *fakeKeys) KeysChangedSince(_ context.Context, since time.Time) ([]access.Key, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []access.Key
	for _, k := range f.keys {
		if !k.UpdatedAt.Before(since) {
			out = append(out, k)
		}
	}
	return out, nil
}

// fakeUsage is an in-memory UsageStore that can fail its next writes.
type fakeUsage struct {
	mu       sync.Mutex
	hourly   []access.UsageCount
	clicks   []access.ClickCount
	signals  []access.Signal
	failNext int
}

func (f *fakeUsage) RecordUsage(_ context.Context, b access.UsageBatch) error {
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
func (f *fakeUsage) total(match func(access.UsageCount) bool) int64 {
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

func (f *fakeUsage) DailyUsage(_ context.Context, prefix string, from, to time.Time) ([]access.UsageCount, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []access.UsageCount
	for _, c := range f.hourly {
		day := c.Start.Truncate(24 * time.Hour)
		if (prefix == "" || c.KeyPrefix == prefix) && !day.Before(from) && day.Before(to) {
			c.Start = day
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeUsage) HourlyUsage(context.Context, string, time.Time, time.Time) ([]access.UsageCount, error) {
	return nil, nil
}

func (f *fakeUsage) DailyClicks(context.Context, time.Time, time.Time) ([]access.ClickCount, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]access.ClickCount(nil), f.clicks...), nil
}

func (f *fakeUsage) PruneHourlyUsage(context.Context, time.Time) (int64, error) { return 0, nil }

func (f *fakeUsage) RecordSignals(_ context.Context, s []access.Signal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failNext > 0 {
		f.failNext--
		return fmt.Errorf("fake: %w", catalog.ErrUnavailable)
	}
	f.signals = append(f.signals, s...)
	return nil
}

func (f *fakeUsage) Signals(context.Context, time.Time, int) ([]access.Signal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]access.Signal(nil), f.signals...), nil
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
