package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// RunUsageStore runs the usage.Store contract against stores made by
// open, which must return a fresh, empty store.
func RunUsageStore(t *testing.T, open func(t *testing.T) usage.Store) {
	t.Run("DailyAndHourly", func(t *testing.T) { testUsageDailyHourly(t, open(t)) })
	t.Run("Accumulates", func(t *testing.T) { testUsageAccumulates(t, open(t)) })
	t.Run("Clicks", func(t *testing.T) { testUsageClicks(t, open(t)) })
	t.Run("PruneHourly", func(t *testing.T) { testUsagePrune(t, open(t)) })
	t.Run("Signals", func(t *testing.T) { testUsageSignals(t, open(t)) })
}

var usageDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func usageBatch() usage.Batch {
	h := func(prefix, endpoint, class string, hour int, n int64) usage.Count {
		return usage.Count{KeyPrefix: prefix, Endpoint: endpoint, StatusClass: class, Start: usageDay.Add(time.Duration(hour) * time.Hour), Count: n}
	}
	return usage.Batch{Hourly: []usage.Count{
		h("fds_aaaaaaaa", "perfumes", "2xx", 9, 5),
		h("fds_aaaaaaaa", "perfumes", "2xx", 10, 7),
		h("fds_aaaaaaaa", "perfumes", "4xx", 10, 1),
		h("fds_aaaaaaaa", "brands", "2xx", 25, 2), // the next day
		h("fds_bbbbbbbb", "perfumes", "2xx", 9, 3),
	}}
}

// usageSum totals counts by a label.
func usageSum(cs []usage.Count, label func(usage.Count) string) map[string]int64 {
	out := map[string]int64{}
	for _, c := range cs {
		out[label(c)] += c.Count
	}
	return out
}

func testUsageDailyHourly(t *testing.T, s usage.Store) {
	ctx := context.Background()
	if err := s.RecordUsage(ctx, usageBatch()); err != nil {
		t.Fatal(err)
	}
	byDayClass := func(c usage.Count) string {
		return c.Start.Format(time.DateOnly) + " " + c.Endpoint + " " + c.StatusClass
	}
	daily, err := s.DailyUsage(ctx, "fds_aaaaaaaa", usageDay, usageDay.AddDate(0, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"2026-03-01 perfumes 2xx": 12, "2026-03-01 perfumes 4xx": 1, "2026-03-02 brands 2xx": 2}
	if got := usageSum(daily, byDayClass); !reflect.DeepEqual(got, want) {
		t.Fatalf("daily = %v, want %v", got, want)
	}
	firstDay, err := s.DailyUsage(ctx, "fds_aaaaaaaa", usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil || len(firstDay) != 2 {
		t.Fatalf("[from, to) of one day: %v, %v", firstDay, err)
	}
	all, err := s.DailyUsage(ctx, "", usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := usageSum(all, func(c usage.Count) string { return c.KeyPrefix }); got["fds_bbbbbbbb"] != 3 || got["fds_aaaaaaaa"] != 13 {
		t.Fatalf("all keys = %v", got)
	}
	hourly, err := s.HourlyUsage(ctx, "fds_aaaaaaaa", usageDay.Add(10*time.Hour), usageDay.Add(11*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := usageSum(hourly, func(c usage.Count) string { return c.StatusClass }); !reflect.DeepEqual(got, map[string]int64{"2xx": 7, "4xx": 1}) {
		t.Fatalf("hour 10 = %v", got)
	}
	for _, c := range hourly {
		if !c.Start.Equal(usageDay.Add(10 * time.Hour)) {
			t.Fatalf("hourly start = %v", c.Start)
		}
	}
}

func testUsageAccumulates(t *testing.T, s usage.Store) {
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.RecordUsage(ctx, usageBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordUsage(ctx, usage.Batch{}); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	daily, err := s.DailyUsage(ctx, "fds_bbbbbbbb", usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil || len(daily) != 1 || daily[0].Count != 9 {
		t.Fatalf("after three batches: %+v, %v", daily, err)
	}
}

func testUsageClicks(t *testing.T, s usage.Store) {
	ctx := context.Background()
	b := usage.Batch{Clicks: []usage.Click{
		{PerfumeID: 42, Day: usageDay, Count: 3},
		{PerfumeID: 7, Day: usageDay, Count: 1},
		{PerfumeID: 42, Day: usageDay.AddDate(0, 0, 1), Count: 2},
	}}
	for i := 0; i < 2; i++ {
		if err := s.RecordUsage(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.DailyClicks(ctx, usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := []usage.Click{{PerfumeID: 7, Day: usageDay, Count: 2}, {PerfumeID: 42, Day: usageDay, Count: 6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %+v, want %+v", got, want)
	}
}

func testUsagePrune(t *testing.T, s usage.Store) {
	ctx := context.Background()
	if err := s.RecordUsage(ctx, usageBatch()); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneHourlyUsage(ctx, usageDay.Add(10*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want the 2 rows of hour 9", n, err)
	}
	hourly, _ := s.HourlyUsage(ctx, "", usageDay, usageDay.AddDate(0, 0, 2))
	if len(hourly) != 3 {
		t.Fatalf("hourly rows left = %d, want 3", len(hourly))
	}
	daily, _ := s.DailyUsage(ctx, "", usageDay, usageDay.AddDate(0, 0, 2))
	if got := usageSum(daily, func(usage.Count) string { return "" })[""]; got != 18 {
		t.Fatalf("daily total after prune = %d, want 18 (daily counts are kept)", got)
	}
}

func testUsageSignals(t *testing.T, s usage.Store) {
	ctx := context.Background()
	at := usageDay.Add(12 * time.Hour)
	in := []usage.Signal{
		{Kind: usage.SignalLimitHits, KeyPrefix: "fds_aaaaaaaa", ClientIP: "192.0.2.1", Count: 100, Window: 10 * time.Minute, Detail: "d1", At: at},
		{Kind: usage.SignalManyIPs, KeyPrefix: "fds_aaaaaaaa", Count: 50, Window: 10 * time.Minute, Detail: "d2", At: at.Add(time.Minute)},
		{Kind: usage.SignalFailedChecks, ClientIP: "2001:db8::1", Count: 20, Window: time.Minute, Detail: "d3", At: at.Add(2 * time.Minute)},
	}
	if err := s.RecordSignals(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Signals(ctx, at.Add(time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != usage.SignalFailedChecks || got[1].Kind != usage.SignalManyIPs {
		t.Fatalf("signals since +1m = %+v", got)
	}
	g := got[0]
	g.ID = 0
	g.At = g.At.UTC()
	if !reflect.DeepEqual(g, in[2]) {
		t.Fatalf("read back %+v, want %+v", g, in[2])
	}
	if got, _ := s.Signals(ctx, time.Time{}, 1); len(got) != 1 || got[0].Detail != "d3" {
		t.Fatalf("limit 1 = %+v", got)
	}
}
