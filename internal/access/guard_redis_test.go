package access_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
)

// TestGuardConcurrentFreeKeyRedis is the acceptance case through the HTTP
// layer with the Redis backend (FRAGRANCE_TEST_REDIS).
func TestGuardConcurrentFreeKeyRedis(t *testing.T) {
	u := os.Getenv("FRAGRANCE_TEST_REDIS")
	if u == "" {
		t.Skip("FRAGRANCE_TEST_REDIS not set")
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(o)
	t.Cleanup(func() { client.Close() })
	prefix := fmt.Sprintf("fragrance-test:%x:", rand.Uint64())
	t.Cleanup(func() {
		keys, _ := client.Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			client.Del(context.Background(), keys...)
		}
	})
	e := newEnvWith(t, access.Config{}, func(now func() time.Time) ratelimit.Limiter {
		l, err := redislimit.New(context.Background(), redislimit.Options{
			Client: client, Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: now}), KeyPrefix: prefix, Now: now,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	})
	testConcurrentFreeKey(t, e)
	if st := e.g.LimiterStatus(); st.Backend != "redis" || st.Degraded {
		t.Fatalf("status %+v", st)
	}
}
