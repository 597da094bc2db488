package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestUsageFromReplicas: replicas flushing overlapping counts at the same
// time lose nothing and count nothing twice.
func TestUsageFromReplicas(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	const replicas, flushers, flushes = 3, 2, 15
	dbs := make([]*postgres.DB, replicas)
	for i := range dbs {
		dbs[i] = openAt(t, u)
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	batch := usage.Batch{
		Hourly: []usage.Count{
			{KeyPrefix: "fds_aaaaaaaa", Endpoint: "perfumes", StatusClass: "2xx", Start: day.Add(9 * time.Hour), Count: 3},
			{KeyPrefix: "fds_aaaaaaaa", Endpoint: "perfumes", StatusClass: "2xx", Start: day.Add(10 * time.Hour), Count: 4},
			{KeyPrefix: "fds_bbbbbbbb", Endpoint: "brands", StatusClass: "4xx", Start: day.Add(9 * time.Hour), Count: 1},
		},
		Clicks: []usage.Click{{PerfumeID: 7, Day: day, Count: 2}, {PerfumeID: 7, Day: day, Count: 1}},
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, replicas*flushers)
	for _, db := range dbs {
		for range flushers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range flushes {
					if err := db.RecordUsage(ctx, batch); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const n = replicas * flushers * flushes
	daily, err := dbs[0].DailyUsage(ctx, "", day, day.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range daily {
		got[c.KeyPrefix] += c.Count
	}
	if got["fds_aaaaaaaa"] != 7*n || got["fds_bbbbbbbb"] != n {
		t.Fatalf("daily totals = %v, want %d and %d", got, 7*n, n)
	}
	hourly, err := dbs[1].HourlyUsage(ctx, "fds_aaaaaaaa", day.Add(9*time.Hour), day.Add(10*time.Hour))
	if err != nil || len(hourly) != 1 || hourly[0].Count != 3*n {
		t.Fatalf("hour 9 = %+v, %v; want %d", hourly, err, 3*n)
	}
	clicks, err := dbs[2].DailyClicks(ctx, day, day.AddDate(0, 0, 1))
	if err != nil || len(clicks) != 1 || clicks[0].Count != 3*n {
		t.Fatalf("clicks = %+v, %v; want %d", clicks, err, 3*n)
	}
}

// TestKeyChangesNotify: creating, suspending and revoking a key through one
// replica (or any other way: the table's trigger notifies) reaches the key
// watch of another.
func TestKeyChangesNotify(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	watching, admin := openAt(t, u), openAt(t, u)
	prefixes := make(chan string, 16)
	watcher(t, func(ctx context.Context) error {
		return watching.WatchKeys(ctx, func(p string) { prefixes <- p })
	})
	nextMatching(t, prefixes, "", "initial resync")
	ctx := context.Background()
	k, err := admin.CreateKey(ctx, apikey.Key{Prefix: "fds_AbCd1234", Hash: "ab12", Tier: apikey.Free})
	if err != nil {
		t.Fatal(err)
	}
	nextMatching(t, prefixes, k.Prefix, "prefix of the created key")
	for _, s := range []apikey.State{apikey.Suspended, apikey.Revoked} {
		if _, err := admin.SetKeyState(ctx, k.Prefix, s); err != nil {
			t.Fatal(err)
		}
		nextMatching(t, prefixes, k.Prefix, "prefix after "+string(s))
	}
}
