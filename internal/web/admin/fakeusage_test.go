package admin_test

import (
	"context"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// --- usage.Store: the reads answer the rows set, within their spans.

func (f *fakeStore) RecordUsage(context.Context, usage.Batch) error             { return errUnused }
func (f *fakeStore) RecordSignals(context.Context, []usage.Signal) error        { return errUnused }
func (f *fakeStore) PruneHourlyUsage(context.Context, time.Time) (int64, error) { return 0, errUnused }

func within(t, from, to time.Time) bool { return !t.Before(from) && t.Before(to) }

func counts(rows []usage.Count, prefix string, from, to time.Time) []usage.Count {
	var out []usage.Count
	for _, c := range rows {
		if (prefix == "" || c.KeyPrefix == prefix) && within(c.Start, from, to) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeStore) HourlyUsage(_ context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	unlock, err := f.lock("HourlyUsage")
	defer unlock()
	return counts(f.hourly, prefix, from, to), err
}

func (f *fakeStore) DailyUsage(_ context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	unlock, err := f.lock("DailyUsage")
	defer unlock()
	return counts(f.daily, prefix, from, to), err
}

func (f *fakeStore) HourlyLatency(_ context.Context, from, to time.Time) ([]usage.Latency, error) {
	unlock, err := f.lock("HourlyLatency")
	defer unlock()
	var out []usage.Latency
	for _, l := range f.latency {
		if within(l.Hour, from, to) {
			out = append(out, l)
		}
	}
	return out, err
}

func (f *fakeStore) DailyClicks(_ context.Context, from, to time.Time) ([]usage.Click, error) {
	unlock, err := f.lock("DailyClicks")
	defer unlock()
	var out []usage.Click
	for _, c := range f.clicks {
		if within(c.Day, from, to) {
			out = append(out, c)
		}
	}
	return out, err
}

func (f *fakeStore) TopViewed(_ context.Context, _, _ time.Time, limit int) ([]usage.PerfumeViews, error) {
	unlock, err := f.lock("TopViewed")
	defer unlock()
	return f.views[:min(limit, len(f.views))], err
}

func (f *fakeStore) EmptySearches(_ context.Context, _, _ time.Time, limit int) ([]usage.Search, error) {
	unlock, err := f.lock("EmptySearches")
	defer unlock()
	return f.empty[:min(limit, len(f.empty))], err
}

func (f *fakeStore) Signals(_ context.Context, since time.Time, limit int) ([]usage.Signal, error) {
	unlock, err := f.lock("Signals")
	defer unlock()
	var out []usage.Signal
	for i := len(f.signals) - 1; i >= 0 && len(out) < limit; i-- {
		if !f.signals[i].At.Before(since) {
			out = append(out, f.signals[i])
		}
	}
	return out, err
}
