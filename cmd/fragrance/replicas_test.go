package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// backendURLs returns the PostgreSQL and Redis of the test environment,
// skipping when they are not configured (CI configures both).
func backendURLs(t *testing.T) (pg, redis string) {
	t.Helper()
	pg, redis = os.Getenv("FRAGRANCE_TEST_POSTGRES"), os.Getenv("FRAGRANCE_TEST_REDIS")
	if pg == "" || redis == "" {
		t.Skip("FRAGRANCE_TEST_POSTGRES and FRAGRANCE_TEST_REDIS are needed for the multi-replica test")
	}
	return pg, redis
}

// freshSchema creates an empty schema and returns a URL that uses it; the
// schema is dropped when the test ends.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	name := "replicas_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("FRAGRANCE_TEST_POSTGRES is set but unusable: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err == nil {
			conn.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE")
			conn.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestReplicas runs two replicas on one PostgreSQL and one Redis and checks
// what they must share: rate limits, key revocation, catalogue imports and
// usage totals.
func TestReplicas(t *testing.T) {
	pgBase, redisURL := backendURLs(t)
	db := freshSchema(t, pgBase)
	// Polling is off (an hour): imports must travel by NOTIFY. A loaded test
	// machine can keep Redis past the default 250 ms, and a replica then
	// (rightly) decides alone: give Redis time, so the shared count is tested.
	args := []string{"--db", db, "--redis", redisURL, "--reload-every", "1h", "--redis-timeout", "5s"}
	baseA, stopA := startServe(t, noEnv, args...)
	baseB, stopB := startServe(t, noEnv, args...)
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "free", "--email", "replicas@example.com"))
	prefix, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}

	// 32 clients, 100 requests spread over both replicas: exactly 60 pass.
	var admitted, refused, sent atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for sent.Add(1) <= 100 {
				base := baseA
				if c%2 == 1 {
					base = baseB
				}
				code, _ := getJSON(t, base+"/api/perfumes?limit=1", "X-API-Key", key)
				switch code {
				case 200:
					admitted.Add(1)
				case 429:
					refused.Add(1)
				default:
					t.Errorf("status %d", code)
				}
			}
		}(c)
	}
	wg.Wait()
	if admitted.Load() != 60 || refused.Load() != 40 {
		t.Errorf("admitted %d, refused %d; want 60 and 40 across both replicas", admitted.Load(), refused.Load())
	}

	// An import on one side reaches both replicas.
	_, before := getJSON(t, baseA+"/healthz")
	file := filepath.Join(t.TempDir(), "more.jsonl")
	generateFile(t, file, 25, 3)
	runCmd(t, "import", "--db", db, file)
	want := before["perfumes"].(float64) + 25
	for _, base := range []string{baseA, baseB} {
		waitFor(t, "import to reach "+base, func() bool {
			_, h := getJSON(t, base+"/healthz")
			return h["perfumes"].(float64) == want
		})
	}

	// A revocation takes effect on both replicas within seconds.
	runCmd(t, "keys", "revoke", "--db", db, prefix.Prefix)
	for _, base := range []string{baseA, baseB} {
		waitFor(t, "revocation to reach "+base, func() bool {
			code, _ := getJSON(t, base+"/api/perfumes?limit=1", "X-API-Key", key)
			return code == http.StatusUnauthorized
		})
	}

	// Usage of both replicas adds up once both have flushed on shutdown:
	// the 100 requests of the limit test (60 answered, 40 refused by the
	// limit: a class of their own) plus the revocation probes (429 while
	// the key is still known and at its limit, then 401).
	stopA()
	stopB()
	store, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC()
	counts, err := store.DailyUsage(context.Background(), prefix.Prefix, now.Add(-48*time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	byClass := map[string]int64{}
	for _, c := range counts {
		byClass[c.StatusClass] += c.Count
	}
	if byClass["2xx"] != 60 || byClass[usage.ClassRateLimited] < 40 || byClass["4xx"] < 1 {
		t.Errorf("metered usage %v; want 60 2xx, at least 40 429 and the revocation probes' 4xx", byClass)
	}
}

// waitFor polls cond for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var _ = strings.TrimSpace
