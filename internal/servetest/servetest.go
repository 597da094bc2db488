// Package servetest starts the service's HTTP surface in tests, as serve
// composes it (package server mounting the API, the pages and what else a
// test gives), over the real bundled catalogue imported into a real SQLite
// store and loaded back. The API's, the server's and the pages' tests share
// it.
package servetest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/docs"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// BaseURL is the public base URL the test server's answers carry, and
// Version its X-API-Version.
const (
	BaseURL = "https://fragrance.example"
	Version = "1.7.0"
)

// seeded is the bundled catalogue, imported once into a new SQLite store and
// indexed from what the store gives back, as serve does.
var seeded = sync.OnceValues(func() (*index.Index, error) {
	s, err := seededStore()
	return s.ix, err
})

// seedResult is the seeded index and the change feed of the stored
// perfumes it was built from.
type seedResult struct {
	ix   *index.Index
	feed seededFeed
}

var seededStore = sync.OnceValues(func() (seedResult, error) {
	ix, ps, err := seed()
	return seedResult{ix, newSeededFeed(ps)}, err
})

// seed imports the bundled catalogue into a new SQLite store and returns
// the index built from it and its stored perfumes.
func seed() (*index.Index, []catalog.Perfume, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "servetest-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, nil, err
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(dir, "catalogue.db"))
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	if _, err := db.ImportPerfumes(ctx, res.Perfumes, nil); err != nil {
		return nil, nil, err
	}
	ix, err := storedIndex(ctx, db, ref)
	if err != nil {
		return nil, nil, err
	}
	ps, err := db.Perfumes(ctx)
	if err != nil {
		return nil, nil, err
	}
	return ix, ps, nil
}

// storedIndex builds the index of db's perfumes, streamed from the store
// as serve does.
func storedIndex(ctx context.Context, db *sqlite.DB, ref *bundled.Reference) (*index.Index, error) {
	b := index.NewBuilder(index.Options{AccordColor: ref.Color}, 0)
	if err := db.EachPerfume(ctx, func(p *catalog.Perfume) error { b.Add(p); return nil }); err != nil {
		return nil, err
	}
	return b.Index(), nil
}

// StoredCatalogue is the index of the perfumes of the existing SQLite
// database at path (one a load benchmark filled, say), built as serve
// builds it.
func StoredCatalogue(t testing.TB, path string) *index.Index {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err) // sqlite.Open would make a new, empty database
	}
	ctx := context.Background()
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix, err := storedIndex(ctx, db, ref)
	if err != nil {
		t.Fatalf("servetest: index %s: %v", path, err)
	}
	return ix
}

// Catalogue is the bundled catalogue as the service serves it, loaded
// once per test binary.
func Catalogue(t testing.TB) *index.Holder {
	t.Helper()
	ix, err := seeded()
	if err != nil {
		t.Fatalf("servetest: seed the catalogue: %v", err)
	}
	return index.NewHolder(ix)
}

// Index is the index of Catalogue: the bundled catalogue as the service
// serves it, built once per test binary. A package's internal tests, which
// cannot import servetest, may be handed it by its external ones.
func Index() (*index.Index, error) { return seeded() }

// Config is what a test may change of the composed server. The zero
// value serves the bundled catalogue without keys, with the pages.
type Config struct {
	// Catalogue: default the bundled catalogue; index.NewHolder(nil) is a
	// catalogue still loading.
	Catalogue *index.Holder
	// The API's access layer and usage (nil: none).
	Guard  api.Guard
	Caller api.Caller
	Usage  api.Usage
	// Changes serves the change feed (nil: every perfume of Catalogue, in
	// id order, as sequences 1, 2, ...).
	Changes api.ChangeFeed
	// Images builds image URLs (nil: the default paths under BaseURL);
	// ImageHost is mounted at ImagePath when both are set.
	Images        view.Images
	ImageHost     http.Handler
	ImagePath     string
	AnswerCacheMB int
	// AnswerCacheMinCost: see api.Config (negative: every answer kept).
	AnswerCacheMinCost time.Duration
	// MCP builds the handler of /mcp from the catalogue and the URLs (nil:
	// not mounted).
	MCP func(catalogue *index.Holder, urls view.Builder) http.Handler
	// Area, when set, builds one more area of pages on the ground (the
	// developer portal, say), mounted beside the website.
	Area func(ground *web.Ground) server.Routes
	// Pages replaces the website (packages web, web/site and web/docs)
	// when set.
	Pages server.Routes
	// Analytics is the operator's analytics snippet of the pages.
	Analytics string
	// SiteSearch wraps the keyless /api/search (the per-IP limit); nil:
	// none.
	SiteSearch func(http.Handler) http.Handler
	ShopURL    string
	Click      func(r *http.Request, perfumeID int64)
	Health     func(ctx context.Context) server.Health
	Metrics    http.Handler
	Registry   prometheus.Registerer
	Logger     *slog.Logger
	// AccessLog, if set, takes the access-log lines instead of Logger.
	AccessLog server.AccessLog
}

// NewServer returns the composed HTTP handler with mod applied to the
// default Config.
func NewServer(t testing.TB, mod func(*Config)) http.Handler {
	t.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	c := Config{}
	if mod != nil {
		mod(&c)
	}
	if c.Catalogue == nil {
		c.Catalogue = Catalogue(t)
	}
	if c.Changes == nil {
		s, err := seededStore()
		if err != nil {
			t.Fatalf("servetest: seed the catalogue: %v", err)
		}
		c.Changes = s.feed
	}
	urls := view.NewBuilder(BaseURL, c.Images, ref.Color)
	ground, err := web.New(web.Config{Catalogue: c.Catalogue, ShopURL: c.ShopURL, Click: c.Click, BaseURL: BaseURL,
		ImageURL: urls.Image(1), Analytics: c.Analytics, Logger: c.Logger})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := site.New(site.Config{Web: ground, Catalogue: c.Catalogue, View: urls})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := docs.New(docs.Config{Web: ground, OpenAPI: api.OpenAPIDocument()})
	if err != nil {
		t.Fatal(err)
	}
	routes := server.Join(ground, pages, dev)
	if c.Area != nil {
		routes = server.Join(routes, c.Area(ground))
	}
	cfg := server.Config{
		Catalogue: c.Catalogue,
		API: api.New(api.Config{
			Catalogue: c.Catalogue, View: urls,
			Guard: c.Guard, Caller: c.Caller, Usage: c.Usage, Logger: c.Logger, AnswerCacheMB: c.AnswerCacheMB,
			AnswerCacheMinCost: c.AnswerCacheMinCost, Registry: c.Registry,
			SiteSearch: c.SiteSearch, Changes: c.Changes,
		}),
		Images: c.ImageHost, ImagePath: c.ImagePath,
		Pages: routes, NotFound: ground.NotFound(),
		Health: c.Health, Metrics: c.Metrics, Registry: c.Registry,
		Logger: c.Logger, AccessLog: c.AccessLog, Version: Version,
	}
	if c.MCP != nil {
		cfg.MCP = c.MCP(c.Catalogue, urls)
	}
	if c.Pages != nil {
		cfg.Pages, cfg.NotFound = c.Pages, nil
	}
	return server.New(cfg)
}

// SeededFeed is the change feed NewServer serves by default, cut to its
// first n perfumes (all of them when n is past its end): for a test that
// needs the feed's answers, not its length.
func SeededFeed(t testing.TB, n int) api.ChangeFeed {
	t.Helper()
	s, err := seededStore()
	if err != nil {
		t.Fatalf("servetest: seed the catalogue: %v", err)
	}
	return s.feed[:min(n, len(s.feed))]
}

// seededFeed is the change feed of the bundled catalogue, never changed
// since it was imported: its perfumes in the order of their change
// sequences, as the store gave them.
type seededFeed []catalog.Perfume

// newSeededFeed is the feed of the stored perfumes ps (sorted in place).
func newSeededFeed(ps []catalog.Perfume) seededFeed {
	f := seededFeed(ps)
	slices.SortFunc(f, func(a, b catalog.Perfume) int { return cmp.Compare(a.Seq, b.Seq) })
	return f
}

// Changes lists the perfumes after sequence since.
func (f seededFeed) Changes(_ context.Context, since int64, limit int) ([]catalog.Change, error) {
	i, _ := slices.BinarySearchFunc(f, since+1, func(p catalog.Perfume, seq int64) int { return cmp.Compare(p.Seq, seq) })
	var out []catalog.Change
	for ; i < len(f) && len(out) < limit; i++ {
		out = append(out, catalog.Change{Seq: f[i].Seq, ID: f[i].ID, Slug: f[i].Slug, Perfume: &f[i]})
	}
	return out, nil
}

// Do sends one request to h, with header names and values in pairs, and
// returns the recorded answer.
func Do(t testing.TB, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Decode parses a JSON object answer.
func Decode(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, rec.Body.String())
	}
	return m
}

// Meter is a meter over store on clock now (nil: time.Now) that writes only
// when flushed or closed.
func Meter(t testing.TB, store usage.Store, now func() time.Time) *meter.Meter {
	t.Helper()
	m, err := meter.New(store, meter.Options{Now: now})
	if err != nil {
		t.Fatal(fmt.Errorf("servetest: %w", err))
	}
	return m
}
