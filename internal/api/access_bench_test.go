package api_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit/redistest"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// BenchmarkAccessLayer measures what the access layer adds to real
// requests through the real handler: each request with the layer off (no
// Guard), behind a Guard over a real SQLite key store with the in-process
// limiter, and with the Redis limiter when FRAGRANCE_TEST_REDIS is set.
// The key's limits are never reached, so every answer is a 200.
//
//	go test -run '^$' -bench AccessLayer -count 5 ./internal/api/
func BenchmarkAccessLayer(b *testing.B) {
	for _, req := range []struct{ name, target string }{
		{"detail", "/api/perfumes/dior-sauvage"},
		{"search", "/api/perfumes?q=dior"},
	} {
		b.Run(req.name+"/off", func(b *testing.B) {
			benchAccess(b, newServer(b, nil), req.target, "")
		})
		b.Run(req.name+"/memory", func(b *testing.B) {
			g, secret := benchAccessGuard(b, nil)
			benchAccess(b, newServer(b, func(c *newConfig) { c.Guard = g }), req.target, secret)
		})
		b.Run(req.name+"/redis", func(b *testing.B) {
			rl := redistest.Limiter(b, nil, nil, 0)
			g, secret := benchAccessGuard(b, rl)
			benchAccess(b, newServer(b, func(c *newConfig) { c.Guard = g }), req.target, secret)
			if rl.Status().Degraded {
				b.Fatal("Redis degraded during the benchmark: the figures are the fallback's")
			}
		})
	}
}

// benchAccess sends target to h until the benchmark has its figure.
func benchAccess(b *testing.B, h http.Handler, target, secret string) {
	var header []string
	if secret != "" {
		header = []string{"X-API-Key", secret}
	}
	if rec := do(b, h, "GET", target, header...); rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := do(b, h, "GET", target, header...); rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", target, rec.Code)
		}
	}
}

// benchAccessGuard returns a Guard over a new SQLite key store and limiter
// lim (nil: in-process), and an enterprise key whose limits are never
// reached.
func benchAccessGuard(b *testing.B, lim ratelimit.Limiter) (*access.Guard, string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "keys.db"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := meter.New(db, meter.Options{})
	if err != nil {
		b.Fatal(err)
	}
	g, err := access.NewGuard(db, m, lim, access.Config{})
	if err != nil {
		db.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close(ctx); db.Close() })
	_, secret, err := apikey.Issue(ctx, db, apikey.NewKey{Tier: apikey.Enterprise, PerMinute: 1 << 40, PerDay: 1 << 40, Email: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	return g, secret
}
