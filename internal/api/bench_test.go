package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// benchTargets are the endpoint classes of the load benchmark
// (bench/load), one typical request each.
var benchTargets = []struct{ name, target string }{
	{"detail", "/api/perfumes/dior-sauvage"},
	{"list", "/api/perfumes"},
	{"search", "/api/perfumes?q=dior+sauvage"},
	{"similar", "/api/perfumes/dior-sauvage/similar"},
	{"dupes", "/api/perfumes/creed-aventus/dupes"},
	{"match", "/api/perfumes/match?accords=woody,vanilla&notes=tonka+bean"},
	{"brands", "/api/brands"},
	{"notes", "/api/notes"},
}

// BenchmarkEndpoints times each endpoint class through the whole handler
// (middleware, routing, encoding), bare, behind the access layer with a key
// whose limits are never reached, and with the access log on as well
// (text, to io.Discard). Profile with
//
//	go test ./internal/api -run '^$' -bench Endpoints -cpuprofile cpu.out
func BenchmarkEndpoints(b *testing.B) {
	bare := newServer(b, nil)
	guarded, secret := guardedServer(b, nil)
	logged, logSecret := guardedServer(b, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tt := range benchTargets {
		b.Run(tt.name+"/bare", func(b *testing.B) { benchGet(b, bare, tt.target, "") })
		b.Run(tt.name+"/guarded", func(b *testing.B) { benchGet(b, guarded, tt.target, secret) })
		b.Run(tt.name+"/guarded-logged", func(b *testing.B) { benchGet(b, logged, tt.target, logSecret) })
	}
}

// guardedServer is the API behind the real access layer over a SQLite key
// store, with an enterprise key of huge limits, logging to log (none when nil).
func guardedServer(b *testing.B, log *slog.Logger) (http.Handler, string) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "keys.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	g, err := access.NewGuard(db, testMeter(b, db, nil), nil, access.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close(ctx) })
	_, secret, err := apikey.Issue(ctx, db, apikey.NewKey{Tier: apikey.Enterprise, Email: "bench@example.com",
		PerMinute: 1 << 40, PerDay: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	return newServer(b, func(c *newConfig) { c.Guard, c.Logger = g, log }), secret
}

func benchGet(b *testing.B, h http.Handler, target, secret string) {
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rec := do(b, h, "GET", target, "X-API-Key", secret)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d %s", target, rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}
