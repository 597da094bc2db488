package meter

import (
	"context"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// Report is the usage of the key prefix over the days UTC days ending with
// today, this replica's counts not yet flushed included. days is clamped
// to 1..usage.MaxReportDays.
func (m *Meter) Report(ctx context.Context, prefix string, days int) (usage.Report, error) {
	return BuildReport(ctx, m.store, prefix, m.opts.Now(), days, m.Pending(prefix))
}

// BuildReport reads the usage of the key prefix for the days UTC days
// ending with today (now's day) from store, adding extra counts not yet
// stored (a meter's pending ones). days is clamped to 1..usage.MaxReportDays.
func BuildReport(ctx context.Context, store usage.Store, prefix string, now time.Time, days int, extra []usage.Count) (usage.Report, error) {
	days = min(max(days, 1), usage.MaxReportDays)
	today := now.UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(days - 1))
	rows, err := store.DailyUsage(ctx, prefix, from, today.AddDate(0, 0, 1))
	if err != nil {
		return usage.Report{}, fmt.Errorf("usage of %s: %w", prefix, err)
	}
	rep := usage.Report{KeyPrefix: prefix, Endpoints: map[string]int64{}, Days: make([]usage.Day, days)}
	for i := range rep.Days {
		rep.Days[i] = usage.Day{Date: from.AddDate(0, 0, i).Format(time.DateOnly), ByStatus: map[string]int64{}, ByEndpoint: map[string]int64{}}
	}
	add := func(c usage.Count) {
		i := int(c.Start.UTC().Sub(from) / (24 * time.Hour))
		if c.Start.Before(from) || i >= days {
			return
		}
		d := &rep.Days[i]
		d.Requests += c.Count
		d.ByStatus[c.StatusClass] += c.Count
		d.ByEndpoint[c.Endpoint] += c.Count
		rep.Endpoints[c.Endpoint] += c.Count
		rep.Total += c.Count
	}
	for _, c := range rows {
		add(c)
	}
	for _, c := range extra {
		add(c)
	}
	rep.Today = rep.Days[days-1]
	return rep, nil
}
