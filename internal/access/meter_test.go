package access_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestMeterLosesNothing meters requests from many goroutines while flushes
// run and some fail; after Close, the store holds every request and click.
func TestMeterLosesNothing(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{Tier: apikey.Enterprise})
	notFound := e.g.Wrap("perfume", http.NotFoundHandler())
	const workers, each = 8, 150
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if j%3 == 0 {
					r := httptest.NewRequest("GET", "/api/perfumes/nope", nil)
					r.Header.Set("X-API-Key", secret)
					notFound.ServeHTTP(httptest.NewRecorder(), r)
				} else {
					e.get("/api/perfumes", "192.0.2.20", "X-API-Key", secret)
				}
				e.meter.Click(int64(j % 4))
			}
		}()
	}
	stop := make(chan struct{})
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				e.usage.mu.Lock()
				e.usage.failNext = 1
				e.usage.mu.Unlock()
			}
			e.meter.Flush(context.Background())
		}
	}()
	wg.Wait()
	close(stop)
	<-flushed
	e.usage.mu.Lock()
	e.usage.failNext = 0
	e.usage.mu.Unlock()
	if err := e.meter.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	all := e.usage.total(func(usage.Count) bool { return true })
	notFounds := e.usage.total(func(c usage.Count) bool { return c.Endpoint == "perfume" && c.StatusClass == "4xx" })
	if all != workers*each || notFounds != workers*50 {
		t.Fatalf("stored %d requests (%d 404s), want %d (%d)", all, notFounds, workers*each, workers*50)
	}
	var clicks int64
	cs, _ := e.usage.DailyClicks(context.Background(), time.Time{}, time.Now())
	for _, c := range cs {
		clicks += c.Count
	}
	if clicks != workers*each {
		t.Fatalf("stored %d clicks, want %d", clicks, workers*each)
	}
}

func TestMeterStatusClasses(t *testing.T) {
	e := newEnv(t, access.Config{})
	k, secret := e.issue(apikey.NewKey{Tier: apikey.Enterprise, PerMinute: 2})
	for i := 0; i < 3; i++ {
		e.get("/api/perfumes", "192.0.2.21", "X-API-Key", secret)
	}
	e.keys.SetKeyState(context.Background(), k.Prefix, apikey.Suspended)
	e.clock.Add(time.Minute) // past the cache TTL: the suspension is seen
	e.get("/api/perfumes", "192.0.2.21", "X-API-Key", secret)
	if err := e.meter.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	ok := e.usage.total(func(c usage.Count) bool { return c.StatusClass == "2xx" && c.KeyPrefix == k.Prefix })
	limited := e.usage.total(func(c usage.Count) bool { return c.StatusClass == "429" && c.KeyPrefix == k.Prefix })
	refused := e.usage.total(func(c usage.Count) bool { return c.StatusClass == "4xx" && c.KeyPrefix == k.Prefix })
	if ok != 2 || limited != 1 || refused != 1 {
		t.Fatalf("2xx %d, 429 %d, 4xx %d; want 2, 1 (the rate-limited one) and 1 (the 403)", ok, limited, refused)
	}
}

func TestAbuseSignals(t *testing.T) {
	trusted, _ := access.ParseTrustedProxies("10.0.0.1")
	e := newEnv(t, access.Config{TrustedProxies: trusted, Abuse: access.AbuseConfig{LimitHits: 3, DistinctIPs: 4}})
	hammer, s1 := e.issue(apikey.NewKey{PerMinute: 1})
	shared, s2 := e.issue(apikey.NewKey{})
	for i := 0; i < 6; i++ {
		e.get("/api/perfumes", "192.0.2.23", "X-API-Key", s1)
	}
	for _, ip := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4", "198.51.100.5"} {
		e.get("/api/perfumes", "10.0.0.1", "X-API-Key", s2, "X-Forwarded-For", ip)
	}
	if err := e.meter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	sigs, _ := e.usage.Signals(context.Background(), time.Time{}, 10)
	if len(sigs) != 2 {
		t.Fatalf("signals %+v, want one limit_hits and one many_ips", sigs)
	}
	for _, s := range sigs {
		switch s.Kind {
		case usage.SignalLimitHits:
			if s.KeyPrefix != hammer.Prefix || s.Count != 3 {
				t.Errorf("limit_hits %+v", s)
			}
		case usage.SignalManyIPs:
			if s.KeyPrefix != shared.Prefix || s.Count != 4 {
				t.Errorf("many_ips %+v", s)
			}
		default:
			t.Errorf("unexpected %+v", s)
		}
	}
}

// TestMetricsHaveNoKeyLabels: keys are unbounded, so no series may name one.
func TestMetricsHaveNoKeyLabels(t *testing.T) {
	e := newEnv(t, access.Config{})
	_, secret := e.issue(apikey.NewKey{PerMinute: 1})
	for i := 0; i < 3; i++ {
		e.get("/api/perfumes", "192.0.2.24", "X-API-Key", secret)
	}
	e.get("/api/perfumes", "192.0.2.24")
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.HasPrefix(l.GetValue(), "fds_") {
					t.Fatalf("metric %s labelled with key %s", mf.GetName(), l.GetValue())
				}
			}
		}
	}
	for _, want := range []string{"fragrance_auth_failures_total", "fragrance_ratelimit_refusals_total", "fragrance_ratelimit_degraded", "fragrance_keycache_lookups_total"} {
		if !names[want] {
			t.Errorf("metric %s missing", want)
		}
	}
	if e.g.LimiterStatus().Backend != "memory" {
		t.Fatalf("status %+v", e.g.LimiterStatus())
	}
}
