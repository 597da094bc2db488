package api_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The internal tests' bundled catalogue is the one the served handlers
// use, built once for both.
func init() { api.UseCatalogue(servetest.Index) }

// newConfig is the server configuration tests modify.
type newConfig = servetest.Config

// newServer is the API as served (mounted by package server over the
// bundled catalogue), with mod applied to its configuration.
func newServer(t testing.TB, mod func(*newConfig)) http.Handler {
	t.Helper()
	return servetest.NewServer(t, mod)
}

var (
	do        = servetest.Do
	decode    = servetest.Decode
	testMeter = servetest.Meter
)

// keyedStack is a Guard and its meter over a SQLite store of their own,
// for tests of how keyed requests are answered, counted and charged.
type keyedStack struct {
	db    *sqlite.DB
	guard *access.Guard
	meter *meter.Meter
}

// newKeyed makes a keyedStack with cfg, its clock fixed at 1 March 2026,
// 12:00 UTC when cfg has none; the Guard and the store close when the
// test ends.
func newKeyed(t *testing.T, cfg access.Config) keyedStack {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	}
	m := testMeter(t, db, cfg.Now)
	g, err := access.NewGuard(db, m, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	return keyedStack{db, g, m}
}

// issue issues a key in the stack's store.
func (k keyedStack) issue(t *testing.T, nk apikey.NewKey) (apikey.Key, string) {
	t.Helper()
	key, secret, err := apikey.Issue(context.Background(), k.db, nk)
	if err != nil {
		t.Fatal(err)
	}
	return key, secret
}

// server is the API as served behind the stack's Guard and meter, with
// mod (nil: none) applied after.
func (k keyedStack) server(t *testing.T, mod func(*newConfig)) http.Handler {
	t.Helper()
	return newServer(t, func(c *newConfig) {
		c.Guard, c.Caller, c.Usage = k.guard, k.guard, k.meter
		if mod != nil {
			mod(c)
		}
	})
}

// emptyHolder is a catalogue that has not loaded yet.
func emptyHolder() *index.Holder { return index.NewHolder(nil) }

// golden compares body with testdata/golden/name.json, rewriting it with -update.
func golden(t *testing.T, name string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	pretty, _ := json.MarshalIndent(v, "", "  ")
	pretty = append(pretty, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, pretty, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update to create it)", name, err)
	}
	if string(want) != string(pretty) {
		t.Errorf("golden %s differs; run go test ./internal/api -update and review the diff\n got: %.600s", name, pretty)
	}
}
