package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
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
	t.Run("Latency", func(t *testing.T) { testUsageLatency(t, open(t)) })
	t.Run("PruneLatency", func(t *testing.T) { testUsagePruneLatency(t, open(t)) })
	t.Run("TopViewed", func(t *testing.T) { testUsageTopViewed(t, open(t)) })
	t.Run("EmptySearches", func(t *testing.T) { testUsageEmptySearches(t, open(t)) })
	t.Run("RefusesInvalidBatch", func(t *testing.T) { testUsageRefusesInvalid(t, open(t)) })
}

// RunUsageAtomic checks that RecordUsage writes all of a batch carrying
// every kind of count or none of it when the database fails part-way. open
// returns a fresh, empty store and a function that makes the store's writes
// of empty searches fail from then on (a trigger, say); the backends write
// empty searches last, so the failure comes after every other kind of count
// was written within the transaction.
func RunUsageAtomic(t *testing.T, open func(t *testing.T) (s usage.Store, breakEmptySearches func(t *testing.T))) {
	ctx := context.Background()
	s, breakEmptySearches := open(t)
	// A first batch, so that the failing one updates rows as well as adding them.
	if err := s.RecordUsage(ctx, fullBatch()); err != nil {
		t.Fatal(err)
	}
	before := snapshotUsage(t, s)
	breakEmptySearches(t)
	b := fullBatch()
	b.EmptySearches = append(b.EmptySearches, usage.Search{Query: "new query", Day: usageDay, Count: 1})
	if err := s.RecordUsage(ctx, b); err == nil {
		t.Fatal("RecordUsage succeeded with empty searches failing")
	}
	if after := snapshotUsage(t, s); !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed batch left counts behind:\n got %+v\nwant %+v", after, before)
	}
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

// fullBatch is usageBatch with counts of every other kind too.
func fullBatch() usage.Batch {
	b := usageBatch()
	b.Clicks = []usage.Click{{PerfumeID: 42, Day: usageDay, Count: 3}}
	b.Latency = []usage.Latency{
		{Endpoint: "perfumes", Hour: usageDay.Add(9 * time.Hour), Bucket: 2, Count: 4},
		{Endpoint: "perfumes", Hour: usageDay.Add(10 * time.Hour), Bucket: 15, Count: 1},
	}
	b.Views = []usage.View{
		{PerfumeID: 42, Kind: usage.ViewDetail, Day: usageDay, Count: 2},
		{PerfumeID: 7, Kind: usage.ViewDupes, Day: usageDay, Count: 1},
	}
	b.EmptySearches = []usage.Search{{Query: "rose oud", Day: usageDay, Count: 2}}
	return b
}

// usageSnapshot is everything a usage store holds for the days of the tests.
type usageSnapshot struct {
	Daily, Hourly []usage.Count
	Clicks        []usage.Click
	Latency       []usage.Latency
	Views         []usage.PerfumeViews
	Searches      []usage.Search
}

func snapshotUsage(t *testing.T, s usage.Store) usageSnapshot {
	t.Helper()
	ctx := context.Background()
	from, to := usageDay.AddDate(0, 0, -1), usageDay.AddDate(0, 0, 5)
	var snap usageSnapshot
	var errs [6]error
	snap.Daily, errs[0] = s.DailyUsage(ctx, "", from, to)
	snap.Hourly, errs[1] = s.HourlyUsage(ctx, "", from, to)
	snap.Clicks, errs[2] = s.DailyClicks(ctx, from, to)
	snap.Latency, errs[3] = s.HourlyLatency(ctx, from, to)
	snap.Views, errs[4] = s.TopViewed(ctx, from, to, 1000)
	snap.Searches, errs[5] = s.EmptySearches(ctx, from, to, 1000)
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	return snap
}

func testUsageLatency(t *testing.T, s usage.Store) {
	ctx := context.Background()
	l := func(endpoint string, hour, bucket int, n int64) usage.Latency {
		return usage.Latency{Endpoint: endpoint, Hour: usageDay.Add(time.Duration(hour) * time.Hour), Bucket: bucket, Count: n}
	}
	batches := []usage.Batch{
		{Latency: []usage.Latency{l("perfumes", 9, 3, 1), l("perfumes", 10, 3, 4), l("perfumes", 9, 0, 2), l("brands", 9, 15, 1)}},
		// A second replica's batch: it adds to the same rows, and to one
		// row twice within the batch.
		{Latency: []usage.Latency{l("perfumes", 9, 3, 5), l("Search", 9, 1, 1), l("perfumes", 9, 3, 1)}},
	}
	for _, b := range batches {
		if err := s.RecordUsage(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.HourlyLatency(ctx, usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	// By hour, endpoint (byte order: upper case first) and bucket.
	want := []usage.Latency{l("Search", 9, 1, 1), l("brands", 9, 15, 1), l("perfumes", 9, 0, 2), l("perfumes", 9, 3, 7), l("perfumes", 10, 3, 4)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("latency = %+v,\nwant %+v", got, want)
	}
	got, err = s.HourlyLatency(ctx, usageDay.Add(10*time.Hour), usageDay.Add(11*time.Hour))
	if err != nil || !reflect.DeepEqual(got, want[4:]) {
		t.Fatalf("latency of [10h, 11h) = %+v, %v; want %+v", got, err, want[4:])
	}
	if got, err := s.HourlyLatency(ctx, usageDay.AddDate(0, 0, 1), usageDay.AddDate(0, 0, 2)); err != nil || got != nil {
		t.Fatalf("latency of a day without any = %+v, %v; want nil", got, err)
	}
}

func testUsagePruneLatency(t *testing.T, s usage.Store) {
	ctx := context.Background()
	b := fullBatch() // hourly rows: 2 of hour 9, 3 later; latency: 1 of hour 9, 1 of hour 10
	b.Latency = append(b.Latency, usage.Latency{Endpoint: "brands", Hour: usageDay.Add(9 * time.Hour), Bucket: 0, Count: 1})
	if err := s.RecordUsage(ctx, b); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneHourlyUsage(ctx, usageDay.Add(10*time.Hour))
	if err != nil || n != 4 {
		t.Fatalf("pruned %d, %v; want 4 (2 hourly count rows and 2 latency rows of hour 9)", n, err)
	}
	lat, err := s.HourlyLatency(ctx, usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil || len(lat) != 1 || !lat[0].Hour.Equal(usageDay.Add(10*time.Hour)) {
		t.Fatalf("latency left = %+v, %v; want the row of hour 10", lat, err)
	}
	if n, err := s.PruneHourlyUsage(ctx, usageDay.Add(10*time.Hour)); err != nil || n != 0 {
		t.Fatalf("second prune: %d, %v; want 0", n, err)
	}
}

func testUsageTopViewed(t *testing.T, s usage.Store) {
	ctx := context.Background()
	v := func(id int64, kind usage.ViewKind, day int, n int64) usage.View {
		return usage.View{PerfumeID: id, Kind: kind, Day: usageDay.AddDate(0, 0, day), Count: n}
	}
	b := usage.Batch{Views: []usage.View{
		v(7, usage.ViewDetail, 0, 3), v(7, usage.ViewSimilar, 1, 2), // 5
		v(42, usage.ViewDupes, 0, 4), v(42, usage.ViewDetail, 0, 1), // 5, tied with 7
		v(9, usage.ViewDetail, 1, 9),    // 9
		v(100, usage.ViewSimilar, 0, 1), // 1
		v(5, usage.ViewDetail, 2, 50),   // the day after the span read
	}}
	for i := 0; i < 2; i++ { // twice: every count doubles
		if err := s.RecordUsage(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	from, to := usageDay, usageDay.AddDate(0, 0, 2)
	all := []usage.PerfumeViews{
		{PerfumeID: 9, Detail: 18},
		{PerfumeID: 7, Detail: 6, Similar: 4},
		{PerfumeID: 42, Detail: 2, Dupes: 8},
		{PerfumeID: 100, Similar: 2},
	}
	got, err := s.TopViewed(ctx, from, to, 10)
	if err != nil || !reflect.DeepEqual(got, all) {
		t.Fatalf("top viewed = %+v, %v;\nwant %+v", got, err, all)
	}
	if got, err := s.TopViewed(ctx, from, to, 3); err != nil || !reflect.DeepEqual(got, all[:3]) {
		t.Fatalf("top 3 = %+v, %v", got, err)
	}
	if got, err := s.TopViewed(ctx, from, to.AddDate(0, 0, 1), 1); err != nil || len(got) != 1 || got[0] != (usage.PerfumeViews{PerfumeID: 5, Detail: 100}) {
		t.Fatalf("top 1 over three days = %+v, %v", got, err)
	}
	if got, err := s.TopViewed(ctx, from.AddDate(0, 0, 1), to, 10); err != nil || len(got) != 2 || got[0].PerfumeID != 9 || got[1] != (usage.PerfumeViews{PerfumeID: 7, Similar: 4}) {
		t.Fatalf("top viewed of the second day = %+v, %v", got, err)
	}
	for _, limit := range []int{0, -1} {
		if got, err := s.TopViewed(ctx, from, to, limit); err != nil || got != nil {
			t.Fatalf("limit %d: %+v, %v; want nothing", limit, got, err)
		}
	}
}

func testUsageEmptySearches(t *testing.T, s usage.Store) {
	ctx := context.Background()
	q := func(query string, day int, n int64) usage.Search {
		return usage.Search{Query: query, Day: usageDay.AddDate(0, 0, day), Count: n}
	}
	batches := []usage.Batch{
		{EmptySearches: []usage.Search{q("rose oud", 0, 2), q("vetiver", 0, 3), q("ambre", 0, 1), q("néroli", 0, 1)}},
		{EmptySearches: []usage.Search{q("rose oud", 1, 3), q("vetiver", 0, 2), q("Ambre", 1, 1), q("tonka", 2, 100)}},
	}
	for _, b := range batches {
		if err := s.RecordUsage(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	from, to := usageDay, usageDay.AddDate(0, 0, 2)
	// Ties go by query, byte by byte: upper case first.
	all := []usage.Search{q("rose oud", 1, 5), q("vetiver", 0, 5), q("Ambre", 1, 1), q("ambre", 0, 1), q("néroli", 0, 1)}
	got, err := s.EmptySearches(ctx, from, to, 10)
	if err != nil || !reflect.DeepEqual(got, all) {
		t.Fatalf("empty searches = %+v, %v;\nwant %+v", got, err, all)
	}
	if got, err := s.EmptySearches(ctx, from, to, 2); err != nil || !reflect.DeepEqual(got, all[:2]) {
		t.Fatalf("top 2 = %+v, %v", got, err)
	}
	if got, err := s.EmptySearches(ctx, from, usageDay.AddDate(0, 0, 1), 10); err != nil || len(got) != 4 || got[0] != q("vetiver", 0, 5) || got[1] != q("rose oud", 0, 2) {
		t.Fatalf("empty searches of the first day = %+v, %v", got, err)
	}
	if got, err := s.EmptySearches(ctx, from, to.AddDate(0, 0, 1), 1); err != nil || len(got) != 1 || got[0] != q("tonka", 2, 100) {
		t.Fatalf("top 1 over three days = %+v, %v", got, err)
	}
	for _, limit := range []int{0, -1} {
		if got, err := s.EmptySearches(ctx, from, to, limit); err != nil || got != nil {
			t.Fatalf("limit %d: %+v, %v; want nothing", limit, got, err)
		}
	}
}

func testUsageRefusesInvalid(t *testing.T, s usage.Store) {
	ctx := context.Background()
	bad := map[string]func(*usage.Batch){
		"view kind": func(b *usage.Batch) {
			b.Views = append(b.Views, usage.View{PerfumeID: 1, Kind: "gallery", Day: usageDay, Count: 1})
		},
		"bucket 16": func(b *usage.Batch) {
			b.Latency = append(b.Latency, usage.Latency{Endpoint: "perfumes", Hour: usageDay, Bucket: usage.LatencyBuckets, Count: 1})
		},
		"bucket -1": func(b *usage.Batch) {
			b.Latency = append(b.Latency, usage.Latency{Endpoint: "perfumes", Hour: usageDay, Bucket: -1, Count: 1})
		},
		"query not UTF-8": func(b *usage.Batch) {
			b.EmptySearches = append(b.EmptySearches, usage.Search{Query: "ros\xc3", Day: usageDay, Count: 1})
		},
		"query with NUL": func(b *usage.Batch) {
			b.EmptySearches = append(b.EmptySearches, usage.Search{Query: "rose\x00oud", Day: usageDay, Count: 1})
		},
	}
	for name, spoil := range bad {
		b := fullBatch()
		spoil(&b)
		if err := s.RecordUsage(ctx, b); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if got := snapshotUsage(t, s); !reflect.DeepEqual(got, usageSnapshot{}) {
		t.Fatalf("refused batches left counts behind: %+v", got)
	}
	if err := s.RecordUsage(ctx, fullBatch()); err != nil {
		t.Fatalf("a valid batch after refused ones: %v", err)
	}
	if got := snapshotUsage(t, s); len(got.Views) != 2 || len(got.Latency) != 2 || len(got.Searches) != 1 || len(got.Clicks) != 1 || len(got.Hourly) != 5 {
		t.Fatalf("after a valid batch: %+v", got)
	}
}
