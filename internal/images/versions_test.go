package images_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/server"
)

const (
	immutableCache = "public, max-age=31536000, immutable"
	shortCache     = "public, max-age=60"
)

// replica is another service over the same store, as a second replica (or
// the server beside the command line) has.
func (e *testEnv) replica(t *testing.T, cfg images.Config) *images.Service {
	t.Helper()
	cfg.BaseURL, cfg.AccordColor = "https://img.example.com/", accordColor
	svc, err := images.New(context.Background(), cfg, e.store, images.NewCatalogue(testPerfumes))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// importPhoto imports one photo of perfume id, drawn with shade.
func importPhoto(t *testing.T, svc *images.Service, id int64, shade int) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, strconv.FormatInt(id, 10)+".jpg"), func(b *bytes.Buffer) error {
		img := photo(600, 800).(*image.RGBA)
		for y := 300; y < 700; y++ { // a different bottle for each shade
			for x := 200; x < 400; x++ {
				img.SetRGBA(x, y, color.RGBA{uint8(40 + shade*5), uint8(20 + shade*3), 90, 255})
			}
		}
		return jpeg.Encode(b, img, &jpeg.Options{Quality: 90})
	})
	if _, err := svc.ImportDir(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
}

// TestVersionedCaching: only the current version is immutable; no version
// or a stale one caches briefly, with the ETag to revalidate.
func TestVersionedCaching(t *testing.T) {
	e := newTestEnv(t)
	url := e.svc.ImageURL(9828)
	path := hostPath(url)
	bare := "/img/perfume/9828.jpg"
	for _, c := range []struct{ path, cache string }{
		{path, immutableCache},
		{bare, shortCache},
		{bare + "?v=000000000001", shortCache},
		{bare + "?v=garbage", shortCache},
		{bare + "?x=1&" + path[len(bare)+1:], immutableCache},
	} {
		res := do(t, e.svc.Handler(), "GET", c.path, nil)
		body(t, res)
		wantHeaders(t, res, 200, map[string]string{"Cache-Control": c.cache})
		if res.Header.Get("ETag") == "" {
			t.Errorf("%s: no ETag", c.path)
		}
	}
}

// TestImportChangesURL: after an import that changes an image's bytes, its
// URL changes with them, and the old URL is not served as immutable.
//
// Stamp moves with every change of what the URLs and availability answer,
// and only then: the API's answer cache fills its answers' image URLs again
// when it moves.
func TestImportChangesURL(t *testing.T) {
	e := newTestEnv(t)
	h := e.svc.Handler()
	ctx := context.Background()
	drawnURL := e.svc.ImageURL(31861)
	old := do(t, h, "GET", hostPath(drawnURL), nil)
	oldBytes := body(t, old)
	wantHeaders(t, old, 200, map[string]string{"Cache-Control": immutableCache})
	stamp := e.svc.Stamp()
	moved := func(svc *images.Service, what string, want bool) {
		t.Helper()
		now := svc.Stamp()
		if (now != stamp) != want {
			t.Errorf("%s: Stamp %d → %d, want moved %v", what, stamp, now, want)
		}
		stamp = now
	}
	if err := e.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	moved(e.svc, "a Refresh that found nothing new", false)

	// A server that has not refreshed yet (another process imported).
	server := e.replica(t, images.Config{})
	serverStamp := server.Stamp()

	importPhoto(t, e.svc, 31861, 0)
	photoURL := e.svc.ImageURL(31861)
	if photoURL == drawnURL {
		t.Fatalf("ImageURL after an import is still %q", photoURL)
	}
	moved(e.svc, "an import", true)
	fresh := do(t, h, "GET", hostPath(photoURL), nil)
	freshBytes := body(t, fresh)
	wantHeaders(t, fresh, 200, map[string]string{"Cache-Control": immutableCache})
	if bytes.Equal(freshBytes, oldBytes) {
		t.Fatal("the imported photo is served as the drawn bottle")
	}
	// The old URL now serves the photo, but not as immutable.
	stale := do(t, server.Handler(), "GET", hostPath(drawnURL), nil)
	if b := body(t, stale); !bytes.Equal(b, freshBytes) {
		t.Error("the old URL does not serve the current image")
	}
	wantHeaders(t, stale, 200, map[string]string{"Cache-Control": shortCache})

	// The other service gives the new URL after serving it once (it noticed)
	// or, at the latest, after its next refresh.
	if err := server.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := server.ImageURL(31861); got != photoURL {
		t.Errorf("after Refresh, the other service's ImageURL = %q, want %q", got, photoURL)
	}
	stamp = serverStamp // it moved when the other service noticed, or at its Refresh
	moved(server, "the other service's Refresh after an import", true)
	if err := server.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	moved(server, "the other service's second Refresh", false)
	stamp = e.svc.Stamp()

	// A second import of another photo changes the URL again.
	importPhoto(t, e.svc, 31861, 20)
	if again := e.svc.ImageURL(31861); again == photoURL {
		t.Errorf("ImageURL after a second import is unchanged: %q", again)
	}

	// The transparent image: versioned once made, and changed when made again.
	e.drain(t)
	moved(e.svc, "a transparent image made", true)
	nobg := e.svc.TransparentURL(31861)
	res := do(t, h, "GET", hostPath(nobg), nil)
	body(t, res)
	wantHeaders(t, res, 200, map[string]string{"Cache-Control": immutableCache})
	importPhoto(t, e.svc, 31861, 0)
	e.drain(t)
	if again := e.svc.TransparentURL(31861); again == nobg {
		t.Errorf("TransparentURL after a new photo is processed is unchanged: %q", again)
	}
}

// TestDrawnImagesKept: a drawn bottle is stored once drawn, and another
// replica serves it without drawing (no miss counted).
func TestDrawnImagesKept(t *testing.T) {
	e := newTestEnv(t)
	url := e.svc.ImageURL(1)
	first := do(t, e.svc.Handler(), "GET", hostPath(url), nil)
	want := body(t, first)
	got, err := e.store.Image(context.Background(), imgstore.Render, 1)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("stored render: %d bytes, %v; want the %d bytes served", len(got), err, len(want))
	}
	// A replica whose clients may miss nothing at all still serves it.
	clk := &fixedClock{t: time.Unix(1_700_000_000, 0)}
	other := e.replica(t, images.Config{MissBurst: 1, MissesPerMinute: 1, Now: clk.now})
	do(t, other.Handler(), "GET", hostPath(other.ImageURL(9828)), nil) // uses the one miss
	res := do(t, other.Handler(), "GET", hostPath(url), nil)
	if b := body(t, res); res.StatusCode != 200 || !bytes.Equal(b, want) {
		t.Fatalf("the other replica answers %d with %d bytes; want 200 with the stored render", res.StatusCode, len(b))
	}
	wantHeaders(t, res, 200, map[string]string{"Cache-Control": immutableCache})
}

type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fixedClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestMissesLimitedPerClient: each client IP may
// cause only so many drawings; beyond, 429 with Retry-After, while other
// clients and images already drawn are served.
func TestMissesLimitedPerClient(t *testing.T) {
	e := newTestEnv(t)
	clk := &fixedClock{t: time.Unix(1_700_000_000, 0)}
	svc := e.replica(t, images.Config{MissBurst: 2, MissesPerMinute: 2, Now: clk.now})
	req := func(id int64, peer string) *http.Response {
		t.Helper()
		res := doFrom(t, svc.Handler(), hostPath(svc.ImageURL(id)), peer)
		body(t, res)
		return res
	}
	wantHeaders(t, req(31861, "192.0.2.1:1000"), 200, nil)
	wantHeaders(t, req(9828, "192.0.2.1:1001"), 200, nil)
	wantHeaders(t, req(31861, "192.0.2.1:1002"), 200, nil) // drawn already: no miss
	res := req(1, "192.0.2.1:1003")
	wantHeaders(t, res, 429, map[string]string{"Retry-After": "30", "Cache-Control": "no-store"})
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("429 to an API client: Content-Type %q", ct)
	}
	// A browser's image request gets the same refusal with the plain bottle
	// as its body, which the page shows instead of a broken image.
	img := doFromWith(t, svc.Handler(), hostPath(svc.ImageURL(1)), "192.0.2.1:1005",
		map[string]string{"Accept": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"})
	wantHeaders(t, img, 429, map[string]string{"Retry-After": "30", "Cache-Control": "no-store",
		"Content-Type": "image/jpeg", images.PlaceholderHeader: images.PlaceholderTooMany})
	if _, err := jpeg.Decode(bytes.NewReader(body(t, img))); err != nil {
		t.Errorf("the placeholder of a 429 is no JPEG: %v", err)
	}
	wantHeaders(t, req(1, "[2001:db8::1]:1000"), 200, nil) // another client
	// The same /64 is the same client (a fresh store: nothing drawn yet).
	svc2 := newTestEnv(t).replica(t, images.Config{MissBurst: 1, MissesPerMinute: 1, Now: clk.now})
	wantHeaders(t, doFrom(t, svc2.Handler(), hostPath(svc2.ImageURL(9828)), "[2001:db8:1:2::1]:1"), 200, nil)
	wantHeaders(t, doFrom(t, svc2.Handler(), hostPath(svc2.ImageURL(31861)), "[2001:db8:1:2::ff]:1"), 429, nil)
	// Time refills the allowance.
	clk.add(30 * time.Second)
	wantHeaders(t, req(1, "192.0.2.1:1004"), 200, nil)
}

// doFrom sends a GET from the peer address peer ("ip:port").
func doFrom(t *testing.T, h http.Handler, path, peer string) *http.Response {
	t.Helper()
	return doFromWith(t, h, path, peer, nil)
}

// doFromWith is doFrom with request headers.
func doFromWith(t *testing.T, h http.Handler, path, peer string, hdr map[string]string) *http.Response {
	t.Helper()
	mux := server.New(server.Config{Catalogue: index.NewHolder(nil), Images: h, ImagePath: "/img"})
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = peer
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec.Result()
}

type accessEntries []server.AccessEntry

func (a *accessEntries) Enabled(slog.Level) bool   { return true }
func (a *accessEntries) Log(e *server.AccessEntry) { *a = append(*a, *e) }

// TestClientGoneIsNotAnError, at the image host: a request
// whose client has gone is answered nothing and logged as 499 at INFO, not
// as a 503 at ERROR.
func TestClientGoneIsNotAnError(t *testing.T) {
	var logged bytes.Buffer
	e := newTestEnv(t)
	svc := e.replica(t, images.Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	var entries accessEntries
	mux := server.New(server.Config{Catalogue: index.NewHolder(nil), Images: svc.Handler(), ImagePath: "/img", AccessLog: &entries})
	for _, path := range []string{hostPath(svc.ImageURL(31861)), hostPath(svc.TransparentURL(31861))} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil).WithContext(ctx))
		if rec.Body.Len() != 0 {
			t.Errorf("%s: answered %d bytes to a client that has gone", path, rec.Body.Len())
		}
	}
	for _, en := range entries {
		if en.Status != server.StatusClientClosed || en.Level != slog.LevelInfo {
			t.Errorf("access log %s: %d at %v, want 499 at INFO", en.Path, en.Status, en.Level)
		}
	}
	if logged.Len() != 0 {
		t.Errorf("logged: %s", logged.String())
	}
}
