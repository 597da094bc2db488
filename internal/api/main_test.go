package api_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// catalogue is the real bundled catalogue, imported once into a real SQLite
// store and loaded back, as serve does.
var catalogue *index.Holder

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "api-test-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		ix, err := seededIndex(filepath.Join(dir, "api.db"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "seed:", err)
			return 1
		}
		catalogue = index.NewHolder(ix)
		return m.Run()
	}()
	os.Exit(code)
}

// seededIndex imports the bundled catalogue into a new SQLite store and
// builds the index from what the store gives back.
func seededIndex(path string) (*index.Index, error) {
	ctx := context.Background()
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, err
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.ImportPerfumes(ctx, res.Perfumes, nil); err != nil {
		return nil, err
	}
	ps, err := db.Perfumes(ctx)
	if err != nil {
		return nil, err
	}
	return index.Build(ps, index.Options{AccordColor: ref.Color}), nil
}

// newServer returns the API handler over the seeded catalogue with no
// access layer; tests of keys and limits build their own.
func newServer(t testing.TB, mod func(*api.Config)) http.Handler {
	t.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.Config{Catalogue: catalogue, BaseURL: "https://fragrance.example", AccordColor: ref.Color, Version: "1.3.0"}
	if mod != nil {
		mod(&cfg)
	}
	return api.New(cfg)
}

// do sends one request to h and returns the recorded answer.
func do(t testing.TB, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decode parses a JSON answer into a generic map.
func decode(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, rec.Body.String())
	}
	return m
}

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

var _ = io.Discard

// newRecorder returns a fresh response recorder.
func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// newConfig is the server configuration tests modify.
type newConfig = api.Config

// emptyHolder is a catalogue that has not loaded yet.
func emptyHolder() *index.Holder { return index.NewHolder(nil) }

// testMeter is a meter over store on clock now (nil: time.Now) that only
// writes when flushed.
func testMeter(t testing.TB, store usage.Store, now func() time.Time) *meter.Meter {
	t.Helper()
	m, err := meter.New(store, meter.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
