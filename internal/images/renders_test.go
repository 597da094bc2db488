package images

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// TestRenderPoolBounded: drawings run in a bounded
// pool with a bounded queue; beyond it a miss is refused at once, and a
// request for an image being drawn joins that drawing.
func TestRenderPoolBounded(t *testing.T) {
	rp := newRenderPool(1, 1, 0)
	release := make(chan struct{})
	started := make(chan int64, 4)
	draw := func(id int64) func() (servedImage, error) {
		return func() (servedImage, error) {
			started <- id
			<-release
			return servedImage{data: []byte{byte(id)}}, nil
		}
	}
	admitted := 0
	admit := func() error { admitted++; return nil }
	f1, err := rp.start(1, admit, draw(1))
	if err != nil {
		t.Fatal(err)
	}
	if id := <-started; id != 1 {
		t.Fatalf("started %d, want 1", id)
	}
	f2, err := rp.start(2, admit, draw(2)) // queued behind 1
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.start(3, admit, draw(3)); !errors.Is(err, errRenderBusy) {
		t.Fatalf("a third drawing: err = %v, want errRenderBusy", err)
	}
	same, err := rp.start(1, admit, draw(1))
	if err != nil || same != f1 {
		t.Fatalf("a request for the image being drawn: %v, %v; want to join its drawing", same, err)
	}
	if admitted != 3 {
		t.Errorf("misses paid = %d, want 3 (joining a drawing costs none)", admitted)
	}
	// A client that leaves stops waiting; the drawing goes on.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f2.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait with a cancelled context: %v", err)
	}
	close(release)
	for _, f := range []*flight{f1, f2} {
		if img, err := f.wait(context.Background()); err != nil || len(img.data) != 1 {
			t.Fatalf("drawing: %v, %v", img, err)
		}
	}
	// Room again.
	if _, err := rp.start(3, func() error { return nil }, draw(3)); err != nil {
		t.Fatalf("after the drawings: %v", err)
	}
	<-started
	<-started
}

// TestMissLimiterBounded: the limiter remembers a bounded number of
// clients, dropping those at rest first.
func TestMissLimiterBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newMissLimiter(60, 1, 2, func() time.Time { return now })
	a, b, c := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3")
	for _, ip := range []netip.Addr{a, b} {
		if ok, _ := l.allow(ip); !ok {
			t.Fatalf("first miss of %v refused", ip)
		}
	}
	if ok, wait := l.allow(c); ok || wait <= 0 {
		t.Fatalf("a third client while two are busy: %v, %v; want refused with a wait", ok, wait)
	}
	now = now.Add(time.Second) // a and b at rest again
	if ok, _ := l.allow(c); !ok {
		t.Fatal("a third client once the others rest: refused")
	}
	if len(l.buckets) > 2 {
		t.Errorf("%d buckets kept, want at most 2", len(l.buckets))
	}
}

func TestVersionSpelling(t *testing.T) {
	v := versionOf([]byte("x"))
	back, ok := parseVersion(v.String())
	if !ok || back != v || len(v.String()) != versionDigits {
		t.Fatalf("%q parses to %v, %v", v.String(), back, ok)
	}
	for _, bad := range []string{"", "0", "000000000000", "ABCDEF012345", "abcdef01234", "abcdef0123456", "abcdef01234g"} {
		if _, ok := parseVersion(bad); ok {
			t.Errorf("parseVersion(%q) accepted", bad)
		}
	}
}

// TestHostBusyAnswersPlaceholder: when the render pool and its queue are
// full, a miss is answered at once with the plain placeholder bottle (a
// JPEG, 200, never kept by a cache, marked), and an unknown id is still a
// quick 404.
func TestHostBusyAnswersPlaceholder(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blobs, err := imgfiles.NewFS(filepath.Join(dir, "images"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Config{RenderSlots: 1, RenderQueue: 1},
		imgstore.With(blobs, db), NewCatalogue([]catalog.Perfume{{ID: 5, Slug: "a-b", Name: "B", Brand: "A"}}))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	for id := int64(100); id < 102; id++ { // one drawing, one waiting
		if _, err := s.renders.start(id, func() error { return nil }, func() (servedImage, error) {
			<-release
			return servedImage{}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/perfume/5.jpg", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/jpeg" || rec.Header().Get("Cache-Control") != "no-store" ||
		rec.Header().Get(PlaceholderHeader) != "renderer-busy" || rec.Header().Get("ETag") != "" {
		t.Errorf("a miss while the pool is full: %d, Content-Type %q, Cache-Control %q, %s %q, ETag %q; want 200, image/jpeg, no-store, renderer-busy, none",
			rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), PlaceholderHeader,
			rec.Header().Get(PlaceholderHeader), rec.Header().Get("ETag"))
	}
	if b := rec.Body.Bytes(); len(b) < 1000 || b[0] != 0xFF || b[1] != 0xD8 {
		t.Errorf("the placeholder is not a JPEG: %d bytes", len(b))
	}
	if _, ok := s.cache.get("5/" + s.drawnVersion(catalog.Perfume{ID: 5, Slug: "a-b", Name: "B", Brand: "A"}).String()); ok {
		t.Errorf("the placeholder was kept as perfume 5's drawing")
	}
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/perfume/6.jpg", nil))
	if rec.Code != 404 {
		t.Errorf("an unknown id while the pool is full: %d, want 404", rec.Code)
	}
}
