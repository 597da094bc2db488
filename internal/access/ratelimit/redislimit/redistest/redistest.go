// Package redistest gives tests the Redis named by FRAGRANCE_TEST_REDIS
// (e.g. redis://127.0.0.1:6379/0): a client, a key prefix of their own
// whose keys are deleted at the end, and a Redis limiter over them. A test
// skips when the variable is unset and fails when it is set but Redis
// cannot be reached (CI sets it: a skipped backend suite there would hide
// a failure). For tests only.
package redistest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
)

// Options returns the options of the test Redis, or skips.
func Options(t testing.TB) *redis.Options {
	t.Helper()
	u := os.Getenv("FRAGRANCE_TEST_REDIS")
	if u == "" {
		t.Skip("FRAGRANCE_TEST_REDIS not set")
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("FRAGRANCE_TEST_REDIS: %v", err)
	}
	return o
}

// Client returns a client of the test Redis, closed at the end, or skips.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(Options(t))
	if err := c.Ping(context.Background()).Err(); err != nil {
		c.Close()
		t.Fatalf("FRAGRANCE_TEST_REDIS is set but unusable: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Prefix returns a key prefix of the test's own; its keys are deleted at
// the end.
func Prefix(t testing.TB, c redis.UniversalClient) string {
	prefix := fmt.Sprintf("fragrance-test:%x:", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// Timeout is the decision timeout of the limiters tests make here: a
// test that holds a limiter to exact counts with Redis up must not see a
// decision slowed by a loaded machine (the race pass on two cores) as an
// outage, which moves a replica to its in-process fallback. The outage
// tests set their own short timeout.
const Timeout = 5 * time.Second

// Limiter returns a Redis limiter over client (nil: a new Client) under a
// prefix of its own, on clock now (nil: time.Now), probing a lost Redis
// every probe (0: the default), deciding within Timeout; it is closed at
// the end.
func Limiter(t testing.TB, client redis.UniversalClient, now func() time.Time, probe time.Duration) *redislimit.Limiter {
	t.Helper()
	if client == nil {
		client = Client(t)
	}
	l, err := redislimit.New(context.Background(), redislimit.Options{
		Client: client, Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: now}),
		KeyPrefix: Prefix(t, client), Now: now, ProbeInterval: probe, Timeout: Timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}
