package access_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit/redistest"
)

// TestGuardConcurrentFreeKeyRedis is the acceptance case through the HTTP
// layer with the Redis backend (FRAGRANCE_TEST_REDIS).
func TestGuardConcurrentFreeKeyRedis(t *testing.T) {
	client := redistest.Client(t)
	e := newEnvWith(t, access.Config{}, func(now func() time.Time) ratelimit.Limiter {
		return redistest.Limiter(t, client, now, 0)
	})
	testConcurrentFreeKey(t, e)
	if st := e.g.LimiterStatus(); st.Backend != "redis" || st.Degraded {
		t.Fatalf("status %+v", st)
	}
}
