package access_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit/redistest"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// BenchmarkGuard measures what Guard.Wrap costs: the same trivial handler
// bare, behind the in-process guard, and behind the Redis guard (when
// FRAGRANCE_TEST_REDIS is set). The key's limits are never reached.
//
//	go test -run '^$' -bench Guard -benchmem ./internal/access/
func BenchmarkGuard(b *testing.B) {
	trivial := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	b.Run("bare", func(b *testing.B) { benchHandler(b, trivial, "") })
	b.Run("memory", func(b *testing.B) {
		g, secret := benchGuard(b, nil)
		benchHandler(b, g.Wrap("perfumes", trivial), secret)
	})
	// The endpoints the scraping signals watch: a list walked page after
	// page, and details fetched in slug order (the worst case: every
	// request advances a walk).
	b.Run("memory-list-walk", func(b *testing.B) {
		g, secret := benchGuard(b, nil)
		benchWalk(b, g.Wrap("perfumes.list", trivial), secret, func(i int) string { return "/api/perfumes?page=" + strconv.Itoa(i+1) })
	})
	b.Run("memory-detail-walk", func(b *testing.B) {
		g, secret := benchGuard(b, nil)
		benchWalk(b, g.Wrap("perfumes.detail", trivial), secret, func(i int) string { return fmt.Sprintf("/api/perfumes/brand-%09d", i) })
	})
	b.Run("bare-parallel", func(b *testing.B) { benchParallel(b, trivial, "") })
	b.Run("memory-parallel", func(b *testing.B) {
		g, secret := benchGuard(b, nil)
		benchParallel(b, g.Wrap("perfumes", trivial), secret)
	})
	b.Run("redis", func(b *testing.B) {
		rl := redistest.Limiter(b, nil, nil, 0)
		g, secret := benchGuard(b, rl)
		benchHandler(b, g.Wrap("perfumes", trivial), secret)
		if rl.Status().Degraded {
			b.Fatal("Redis degraded during the benchmark: the figures are the fallback's")
		}
	})
}

func benchGuard(b *testing.B, lim ratelimit.Limiter) (*access.Guard, string) {
	keys := &fakeKeys{now: time.Now}
	g, err := access.NewGuard(keys, newTestMeter(b, &fakeUsage{}, time.Now), lim, access.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close(context.Background()) })
	_, secret, err := apikey.Issue(context.Background(), keys, apikey.NewKey{Tier: apikey.Enterprise, PerMinute: 1 << 40, PerDay: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	return g, secret
}

func benchHandler(b *testing.B, h http.Handler, secret string) {
	r := httptest.NewRequest(http.MethodGet, "/api/perfumes?q=dior", nil)
	r.RemoteAddr = "192.0.2.1:40000"
	if secret != "" {
		r.Header.Set("X-API-Key", secret)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// benchWalk is benchHandler over a different target each time.
func benchWalk(b *testing.B, h http.Handler, secret string, target func(i int) string) {
	const n = 4096
	rs := make([]*http.Request, n)
	for i := range rs {
		rs[i] = httptest.NewRequest(http.MethodGet, target(i), nil)
		rs[i].RemoteAddr = "192.0.2.1:40000"
		rs[i].Header.Set("X-API-Key", secret)
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, rs[i%n])
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
		i++
	}
}

// benchParallel is benchHandler from GOMAXPROCS goroutines on one key,
// which shows the cost of the Guard's locks.
func benchParallel(b *testing.B, h http.Handler, secret string) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := httptest.NewRequest(http.MethodGet, "/api/perfumes?q=dior", nil)
		r.RemoteAddr = "192.0.2.1:40000"
		if secret != "" {
			r.Header.Set("X-API-Key", secret)
		}
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Errorf("status %d", w.Code)
				return
			}
		}
	})
}
