package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// TestAccessLogNeverHoldsKey: the access log names the key's prefix, never
// the key, whether it came in a header or in ?api_key=.
func TestAccessLogNeverHoldsKey(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := access.NewGuard(db, db, nil, access.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	key, secret, err := access.Issue(ctx, db, access.NewKey{Tier: access.Free, Email: "log@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h := newServer(t, func(c *newConfig) {
		c.Guard = g
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	for _, target := range []string{
		"/api/perfumes?limit=1&api_key=" + secret,
		"/api/perfumes/dior-sauvage?api_key=" + secret,
		"/api/nothing?api_key=" + secret,
		"/api/perfumes?api_key=" + secret[:20] + "broken",
	} {
		do(t, h, "GET", target)
	}
	do(t, h, "GET", "/api/perfumes", "X-API-Key", secret)
	out := logs.String()
	if strings.Contains(out, secret) || strings.Contains(out, secret[4:20]+"broken") {
		t.Fatalf("a key reached the log:\n%s", out)
	}
	if !strings.Contains(out, `"key_prefix":"`+key.Prefix+`"`) || !strings.Contains(out, "api_key=REDACTED") {
		t.Errorf("log lacks the key prefix or the redaction:\n%s", out)
	}
}
