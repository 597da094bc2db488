package api_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
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
