package access_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/limitertest"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// slowFailingKeys is a key store whose lookups, while failing, take as
// long as a lookup that times out in a network partition.
type slowFailingKeys struct {
	*fakeKeys
	clock *testclock.Clock
	took  time.Duration
}

func (s *slowFailingKeys) KeyByHash(ctx context.Context, hash string) (apikey.Key, error) {
	k, err := s.fakeKeys.KeyByHash(ctx, hash)
	if err != nil {
		s.clock.Add(s.took) // the lookup ran until its timeout
	}
	return k, err
}

// TestGuardStaleBackoffAfterTimeout: after a failed refresh of a cached key,
// requests are served stale for failBackoff without asking the store, "so
// an outage does not make every request wait for a lookup to time out".
// That must hold when the failure is a timeout (a partition), not only when
// it is immediate: the backoff has to count from the end of the lookup.
func TestGuardStaleBackoffAfterTimeout(t *testing.T) {
	clock := testclock.New(limitertest.Base)
	keys := &slowFailingKeys{fakeKeys: &fakeKeys{now: clock.Now}, clock: clock, took: 2 * time.Second}
	g, err := access.NewGuard(keys, newTestMeter(t, &fakeUsage{}, clock.Now), nil, access.Config{
		CacheTTL: 10 * time.Second, StaleTTL: time.Minute, LookupTimeout: 2 * time.Second, Now: clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	_, secret, err := apikey.Issue(context.Background(), keys, apikey.NewKey{Tier: apikey.Pro})
	if err != nil {
		t.Fatal(err)
	}
	h := g.Wrap("perfumes", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	get := func() int {
		r := httptest.NewRequest("GET", "/api/perfumes", nil)
		r.Header.Set("X-API-Key", secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := get(); code != 200 {
		t.Fatalf("warm-up: %d", code)
	}
	keys.setErr(errors.New("connect: i/o timeout"))
	clock.Add(30 * time.Second) // past the TTL, within the stale bound
	if code := get(); code != 200 {
		t.Fatalf("stale key: %d", code)
	}
	before := keys.lookupCount()
	if code := get(); code != 200 || keys.lookupCount() != before {
		t.Fatalf("right after a refresh that timed out: %d, %d more lookups (each waits LookupTimeout); want none within failBackoff", code, keys.lookupCount()-before)
	}
}
