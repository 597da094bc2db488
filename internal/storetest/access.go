package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// accessClock is a settable clock for key timestamps.
type accessClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *accessClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *accessClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// RunKeyStore runs the access.KeyStore contract against stores made by
// open, which must return a fresh, empty store reading now for its
// timestamps.
func RunKeyStore(t *testing.T, open func(t *testing.T, now func() time.Time) access.KeyStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s access.KeyStore, c *accessClock)
	}{
		{"CreateAndFind", testKeyCreateAndFind},
		{"NotFound", testKeyNotFound},
		{"Duplicates", testKeyDuplicates},
		{"ListOldestFirst", testKeyList},
		{"States", testKeyStates},
		{"Limits", testKeyLimits},
		{"ChangedSince", testKeysChangedSince},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &accessClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			tc.fn(t, open(t, c.now), c)
		})
	}
}

// newTestKey returns a key record ready for CreateKey, made from a real key.
func newTestKey(t *testing.T, tier access.Tier) access.Key {
	t.Helper()
	secret, err := access.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pk, err := access.ParseKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	return access.Key{Prefix: pk.Prefix, Hash: pk.Hash, Name: "test", Email: "dev@example.com", Tier: tier, State: access.Active}
}

func mustCreate(t *testing.T, s access.KeyStore, k access.Key) access.Key {
	t.Helper()
	got, err := s.CreateKey(context.Background(), k)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return got
}

func testKeyCreateAndFind(t *testing.T, s access.KeyStore, c *accessClock) {
	ctx := context.Background()
	k := newTestKey(t, access.Pro)
	k.PerMinute, k.PerDay = 7, 70
	k.Origins = []string{"https://app.example.com", "http://localhost:3000"}
	created := mustCreate(t, s, k)
	if created.ID == 0 || !created.CreatedAt.Equal(c.now()) || !created.UpdatedAt.Equal(c.now()) {
		t.Fatalf("created = %+v, want an ID and times %v", created, c.now())
	}
	byHash, err := s.KeyByHash(ctx, k.Hash)
	if err != nil {
		t.Fatal(err)
	}
	byPrefix, err := s.KeyByPrefix(ctx, k.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []access.Key{byHash, byPrefix} {
		if !sameKey(got, created) {
			t.Fatalf("read back %+v, want %+v", got, created)
		}
	}
	plain := mustCreate(t, s, newTestKey(t, access.Free))
	if got, _ := s.KeyByPrefix(ctx, plain.Prefix); got.Origins != nil || got.PerMinute != 0 || got.State != access.Active {
		t.Fatalf("defaults read back as %+v", got)
	}
}

// sameKey compares keys with times compared as instants.
func sameKey(a, b access.Key) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) {
		return false
	}
	a.CreatedAt, a.UpdatedAt, b.CreatedAt, b.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func testKeyNotFound(t *testing.T, s access.KeyStore, _ *accessClock) {
	ctx := context.Background()
	if _, err := s.KeyByHash(ctx, "00"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("KeyByHash of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.KeyByPrefix(ctx, "fds_nothing0"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("KeyByPrefix of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyState(ctx, "fds_nothing0", access.Suspended); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyState of nothing: %v, want ErrNotFound", err)
	}
	if _, err := s.SetKeyLimits(ctx, "fds_nothing0", 1, 1); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("SetKeyLimits of nothing: %v, want ErrNotFound", err)
	}
	if ks, err := s.ListKeys(ctx); err != nil || len(ks) != 0 {
		t.Errorf("ListKeys of an empty store: %v, %v", ks, err)
	}
}

func testKeyDuplicates(t *testing.T, s access.KeyStore, _ *accessClock) {
	k := mustCreate(t, s, newTestKey(t, access.Free))
	samePrefix := newTestKey(t, access.Free)
	samePrefix.Prefix = k.Prefix
	sameHash := newTestKey(t, access.Free)
	sameHash.Hash = k.Hash
	for _, dup := range []access.Key{samePrefix, sameHash} {
		if _, err := s.CreateKey(context.Background(), dup); !errors.Is(err, access.ErrKeyExists) {
			t.Errorf("duplicate %+v: %v, want ErrKeyExists", dup, err)
		}
	}
	bad := newTestKey(t, access.Free)
	bad.State = "lost"
	if _, err := s.CreateKey(context.Background(), bad); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("unknown state: %v, want ErrInvalid", err)
	}
}

func testKeyList(t *testing.T, s access.KeyStore, c *accessClock) {
	var want []string
	for i := 0; i < 3; i++ {
		want = append(want, mustCreate(t, s, newTestKey(t, access.Basic)).Prefix)
		c.advance(time.Second)
	}
	ks, err := s.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range ks {
		got = append(got, k.Prefix)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListKeys = %v, want %v", got, want)
	}
}

func testKeyStates(t *testing.T, s access.KeyStore, _ *accessClock) {
	ctx := context.Background()
	k := mustCreate(t, s, newTestKey(t, access.Free))
	for _, st := range []access.State{access.Suspended, access.Active, access.Revoked} {
		got, err := s.SetKeyState(ctx, k.Prefix, st)
		if err != nil || got.State != st {
			t.Fatalf("SetKeyState(%s) = %+v, %v", st, got, err)
		}
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, access.Active); !errors.Is(err, access.ErrRevoked) || !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("resuming a revoked key: %v, want ErrRevoked", err)
	}
	if _, err := s.SetKeyLimits(ctx, k.Prefix, 1, 1); !errors.Is(err, access.ErrRevoked) {
		t.Fatalf("changing a revoked key's limits: %v, want ErrRevoked", err)
	}
	if got, _ := s.KeyByHash(ctx, k.Hash); got.State != access.Revoked {
		t.Fatalf("state after refused changes = %s", got.State)
	}
	if _, err := s.SetKeyState(ctx, k.Prefix, "paused"); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("unknown state: %v", err)
	}
}

func testKeyLimits(t *testing.T, s access.KeyStore, _ *accessClock) {
	ctx := context.Background()
	k := mustCreate(t, s, newTestKey(t, access.Enterprise))
	got, err := s.SetKeyLimits(ctx, k.Prefix, 1000, 50)
	if err != nil || got.PerMinute != 1000 || got.PerDay != 50 {
		t.Fatalf("SetKeyLimits = %+v, %v", got, err)
	}
	if got, _ := s.KeyByHash(ctx, k.Hash); got.PerMinute != 1000 || got.PerDay != 50 {
		t.Fatalf("read back %+v", got)
	}
	if _, err := s.SetKeyLimits(ctx, k.Prefix, -1, 0); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("negative limit: %v", err)
	}
}

func testKeysChangedSince(t *testing.T, s access.KeyStore, c *accessClock) {
	ctx := context.Background()
	t0 := c.now()
	a := mustCreate(t, s, newTestKey(t, access.Free))
	c.advance(time.Second)
	b := mustCreate(t, s, newTestKey(t, access.Free))
	c.advance(time.Second)
	if _, err := s.SetKeyState(ctx, a.Prefix, access.Suspended); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		since time.Time
		want  []string
	}{
		{t0, []string{b.Prefix, a.Prefix}},
		{t0.Add(time.Second), []string{b.Prefix, a.Prefix}},
		{t0.Add(1500 * time.Millisecond), []string{a.Prefix}},
		{t0.Add(3 * time.Second), nil},
	} {
		ks, err := s.KeysChangedSince(ctx, tc.since)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range ks {
			got = append(got, k.Prefix)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("KeysChangedSince(+%v) = %v, want %v", tc.since.Sub(t0), got, tc.want)
		}
	}
}

// RunUsageStore runs the access.UsageStore contract against stores made by
// open, which must return a fresh, empty store.
func RunUsageStore(t *testing.T, open func(t *testing.T) access.UsageStore) {
	t.Run("DailyAndHourly", func(t *testing.T) { testUsageDailyHourly(t, open(t)) })
	t.Run("Accumulates", func(t *testing.T) { testUsageAccumulates(t, open(t)) })
	t.Run("Clicks", func(t *testing.T) { testUsageClicks(t, open(t)) })
	t.Run("PruneHourly", func(t *testing.T) { testUsagePrune(t, open(t)) })
	t.Run("Signals", func(t *testing.T) { testUsageSignals(t, open(t)) })
}

var usageDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func usageBatch() access.UsageBatch {
	h := func(prefix, endpoint, class string, hour int, n int64) access.UsageCount {
		return access.UsageCount{KeyPrefix: prefix, Endpoint: endpoint, StatusClass: class, Start: usageDay.Add(time.Duration(hour) * time.Hour), Count: n}
	}
	return access.UsageBatch{Hourly: []access.UsageCount{
		h("fds_aaaaaaaa", "perfumes", "2xx", 9, 5),
		h("fds_aaaaaaaa", "perfumes", "2xx", 10, 7),
		h("fds_aaaaaaaa", "perfumes", "4xx", 10, 1),
		h("fds_aaaaaaaa", "brands", "2xx", 25, 2), // the next day
		h("fds_bbbbbbbb", "perfumes", "2xx", 9, 3),
	}}
}

// usageSum totals counts by a label.
func usageSum(cs []access.UsageCount, label func(access.UsageCount) string) map[string]int64 {
	out := map[string]int64{}
	for _, c := range cs {
		out[label(c)] += c.Count
	}
	return out
}

func testUsageDailyHourly(t *testing.T, s access.UsageStore) {
	ctx := context.Background()
	if err := s.RecordUsage(ctx, usageBatch()); err != nil {
		t.Fatal(err)
	}
	byDayClass := func(c access.UsageCount) string {
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
	if got := usageSum(all, func(c access.UsageCount) string { return c.KeyPrefix }); got["fds_bbbbbbbb"] != 3 || got["fds_aaaaaaaa"] != 13 {
		t.Fatalf("all keys = %v", got)
	}
	hourly, err := s.HourlyUsage(ctx, "fds_aaaaaaaa", usageDay.Add(10*time.Hour), usageDay.Add(11*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := usageSum(hourly, func(c access.UsageCount) string { return c.StatusClass }); !reflect.DeepEqual(got, map[string]int64{"2xx": 7, "4xx": 1}) {
		t.Fatalf("hour 10 = %v", got)
	}
	for _, c := range hourly {
		if !c.Start.Equal(usageDay.Add(10 * time.Hour)) {
			t.Fatalf("hourly start = %v", c.Start)
		}
	}
}

func testUsageAccumulates(t *testing.T, s access.UsageStore) {
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.RecordUsage(ctx, usageBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordUsage(ctx, access.UsageBatch{}); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	daily, err := s.DailyUsage(ctx, "fds_bbbbbbbb", usageDay, usageDay.AddDate(0, 0, 1))
	if err != nil || len(daily) != 1 || daily[0].Count != 9 {
		t.Fatalf("after three batches: %+v, %v", daily, err)
	}
}

func testUsageClicks(t *testing.T, s access.UsageStore) {
	ctx := context.Background()
	b := access.UsageBatch{Clicks: []access.ClickCount{
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
	want := []access.ClickCount{{PerfumeID: 7, Day: usageDay, Count: 2}, {PerfumeID: 42, Day: usageDay, Count: 6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %+v, want %+v", got, want)
	}
}

func testUsagePrune(t *testing.T, s access.UsageStore) {
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
	if got := usageSum(daily, func(access.UsageCount) string { return "" })[""]; got != 18 {
		t.Fatalf("daily total after prune = %d, want 18 (daily counts are kept)", got)
	}
}

func testUsageSignals(t *testing.T, s access.UsageStore) {
	ctx := context.Background()
	at := usageDay.Add(12 * time.Hour)
	in := []access.Signal{
		{Kind: access.SignalLimitHits, KeyPrefix: "fds_aaaaaaaa", ClientIP: "192.0.2.1", Count: 100, Window: 10 * time.Minute, Detail: "d1", At: at},
		{Kind: access.SignalManyIPs, KeyPrefix: "fds_aaaaaaaa", Count: 50, Window: 10 * time.Minute, Detail: "d2", At: at.Add(time.Minute)},
		{Kind: access.SignalFailedChecks, ClientIP: "2001:db8::1", Count: 20, Window: time.Minute, Detail: "d3", At: at.Add(2 * time.Minute)},
	}
	if err := s.RecordSignals(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Signals(ctx, at.Add(time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != access.SignalFailedChecks || got[1].Kind != access.SignalManyIPs {
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
