package images_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/webp"

	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/server"
)

var versionedJPEG = regexp.MustCompile(`^https://img\.example\.com/perfume/31861\.jpg\?v=[0-9a-f]{12}$`)

func TestURLs(t *testing.T) {
	e := newTestEnv(t)
	if got := e.svc.ImageURL(31861); !versionedJPEG.MatchString(got) {
		t.Errorf("ImageURL = %q, want %s", got, versionedJPEG)
	}
	// Not made yet: no version.
	if got, want := e.svc.TransparentURL(31861), "https://img.example.com/perfume-nobg/31861.webp"; got != want {
		t.Errorf("TransparentURL = %q, want %q", got, want)
	}
	sameJSONURLs(t, e.svc, 31861)
	// A drawn bottle's version is its drawing's: the same on another
	// replica, without drawing anything.
	if got, other := e.svc.ImageURL(31861), newTestEnv(t).svc.ImageURL(31861); got != other {
		t.Errorf("ImageURL differs between two services: %q and %q", got, other)
	}
}

// sameJSONURLs checks that the URLs of id appended as JSON strings are
// the URLs, as encoding/json spells them.
func sameJSONURLs(t *testing.T, svc *images.Service, id int64) {
	t.Helper()
	for _, c := range []struct {
		url  string
		json []byte
	}{{svc.ImageURL(id), svc.AppendImageURLJSON([]byte("x"), id)}, {svc.TransparentURL(id), svc.AppendTransparentURLJSON([]byte("x"), id)}} {
		want, _ := json.Marshal(c.url)
		if got := c.json; string(got) != "x"+string(want) {
			t.Errorf("appended as JSON: %s, want x%s", got, want)
		}
	}
}

// hostPath is the path of an image URL of the test service, as mounted by do.
func hostPath(url string) string {
	return "/img" + strings.TrimPrefix(url, "https://img.example.com")
}

// do sends one request to the host mounted as the service mounts it: at
// /img, behind the server's middleware and CORS.
func do(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	mux := server.New(server.Config{Catalogue: index.NewHolder(nil), Images: h, ImagePath: "/img"})
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHostGeneratedJPEG(t *testing.T) {
	e := newTestEnv(t)
	res := do(t, e.svc.Handler(), "GET", hostPath(e.svc.ImageURL(31861)), nil)
	data := body(t, res)
	wantHeaders(t, res, 200, map[string]string{
		"Content-Type":                "image/jpeg",
		"Cache-Control":               "public, max-age=31536000, immutable",
		"Access-Control-Allow-Origin": "*",
		"Accept-Ranges":               "bytes",
	})
	etag := res.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
		t.Errorf("ETag = %q, want a strong quoted tag", etag)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("body is not a JPEG: %v", err)
	}
	if cfg.Width != encode.PhotoWidth || cfg.Height != encode.PhotoHeight {
		t.Errorf("JPEG is %d×%d, want %d×%d", cfg.Width, cfg.Height, encode.PhotoWidth, encode.PhotoHeight)
	}
	if len(data) < 15_000 || len(data) > 30_000 {
		t.Errorf("generated JPEG is %d bytes, want about 20–30 KB", len(data))
	}

	// Another replica draws the same bytes: the ETag is stable.
	other := newTestEnv(t)
	res2 := do(t, other.svc.Handler(), "GET", "/img/perfume/31861.jpg", nil)
	if got := res2.Header.Get("ETag"); got != etag {
		t.Errorf("ETag on a second service = %s, want %s", got, etag)
	}
}

func TestHostConditionalHeadRange(t *testing.T) {
	e := newTestEnv(t)
	h := e.svc.Handler()
	path := hostPath(e.svc.ImageURL(9828))
	full := do(t, h, "GET", path, nil)
	data := body(t, full)
	etag := full.Header.Get("ETag")

	cases := []struct {
		name       string
		method     string
		hdr        map[string]string
		status     int
		wantLen    int
		wantHeader map[string]string
	}{
		{"if-none-match hit", "GET", map[string]string{"If-None-Match": etag}, 304, 0,
			map[string]string{"ETag": etag, "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=31536000, immutable"}},
		{"if-none-match list", "GET", map[string]string{"If-None-Match": `"nope", ` + etag}, 304, 0, nil},
		{"if-none-match miss", "GET", map[string]string{"If-None-Match": `"other"`}, 200, len(data), nil},
		{"head", "HEAD", nil, 200, 0, map[string]string{"Content-Type": "image/jpeg", "ETag": etag}},
		{"range", "GET", map[string]string{"Range": "bytes=0-99"}, 206, 100,
			map[string]string{"Content-Range": "bytes 0-99/" + strconv.Itoa(len(data)), "Access-Control-Allow-Origin": "*"}},
		{"if-range stale", "GET", map[string]string{"Range": "bytes=0-99", "If-Range": `"other"`}, 200, len(data), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := do(t, h, c.method, path, c.hdr)
			b := body(t, res)
			wantHeaders(t, res, c.status, c.wantHeader)
			if len(b) != c.wantLen {
				t.Errorf("body %d bytes, want %d", len(b), c.wantLen)
			}
			if c.method == "HEAD" && res.Header.Get("Content-Length") != strconv.Itoa(len(data)) {
				t.Errorf("HEAD Content-Length = %q, want %d", res.Header.Get("Content-Length"), len(data))
			}
		})
	}
}

func TestHostNotFound(t *testing.T) {
	e := newTestEnv(t)
	h := e.svc.Handler()
	cases := []struct {
		method, path string
		nobgStatus   string
	}{
		{"GET", "/img/perfume-nobg/31861.webp", "not-processed"},
		{"HEAD", "/img/perfume-nobg/31861.webp", "not-processed"},
		{"GET", "/img/perfume-nobg/424242.webp", ""}, // no such perfume: a plain 404
		{"GET", "/img/perfume/424242.jpg", ""},
		{"HEAD", "/img/perfume/424242.jpg", ""},
		{"GET", "/img/perfume/031861.jpg", ""}, // not the canonical URL
		{"GET", "/img/perfume/31861.webp", ""},
		{"GET", "/img/perfume-nobg/31861.jpg", ""},
		{"GET", "/img/perfume/dior-sauvage.jpg", ""},
		{"GET", "/img/perfume/.jpg", ""},
		{"GET", "/img/nothing", ""},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			res := do(t, h, c.method, c.path, nil)
			b := body(t, res)
			wantHeaders(t, res, 404, map[string]string{
				"Access-Control-Allow-Origin": "*",
				"Cache-Control":               "public, max-age=60",
				images.NobgStatusHeader:       c.nobgStatus,
			})
			if c.method == "HEAD" {
				if len(b) != 0 {
					t.Errorf("HEAD 404 has a body of %d bytes", len(b))
				}
				return
			}
			var prob struct{ Error string }
			if err := json.Unmarshal(b, &prob); err != nil || prob.Error == "" {
				t.Errorf("404 body %q: want JSON with an error member (%v)", b, err)
			}
		})
	}
}

func TestHostMethodsAndPreflight(t *testing.T) {
	e := newTestEnv(t)
	h := e.svc.Handler()
	res := do(t, h, "POST", "/img/perfume/1.jpg", nil)
	wantHeaders(t, res, 405, map[string]string{"Allow": "GET, HEAD, OPTIONS", "Access-Control-Allow-Origin": "*"})

	res = do(t, h, "OPTIONS", "/img/perfume-nobg/1.webp", map[string]string{
		"Origin": "https://shop.example", "Access-Control-Request-Method": "GET"})
	wantHeaders(t, res, 204, map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
		"Access-Control-Max-Age":       "86400",
	})
}

func TestHostTransparentAfterProcessing(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	if e.svc.TransparentAvailable(31861) {
		t.Fatal("available before any job")
	}
	if err := e.svc.Enqueue(ctx, []int64{31861}); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.drain(t) {
		if r.Err != nil {
			t.Fatalf("job %d: %v", r.ID, r.Err)
		}
	}
	if !e.svc.TransparentAvailable(31861) {
		t.Fatal("not available after its job is done")
	}
	url := e.svc.TransparentURL(31861)
	if !strings.Contains(url, ".webp?v=") {
		t.Fatalf("TransparentURL once made = %q, want a version", url)
	}
	sameJSONURLs(t, e.svc, 31861)
	res := do(t, e.svc.Handler(), "GET", hostPath(url), nil)
	data := body(t, res)
	wantHeaders(t, res, 200, map[string]string{
		"Content-Type":                "image/webp",
		"Cache-Control":               "public, max-age=31536000, immutable",
		"Access-Control-Allow-Origin": "*",
		images.NobgStatusHeader:       "",
	})
	img, err := webp.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("body is not a WebP: %v", err)
	}
	if img.Bounds() != image.Rect(0, 0, encode.NobgWidth, encode.NobgHeight) {
		t.Errorf("WebP bounds %v", img.Bounds())
	}
	if _, _, _, a := img.At(2, 2).RGBA(); a != 0 {
		t.Errorf("corner alpha = %d, want transparent", a)
	}
	if _, _, _, a := img.At(encode.NobgWidth/2, encode.NobgHeight*2/3).RGBA(); a != 0xffff {
		t.Errorf("bottle centre alpha = %d, want opaque", a)
	}
	etag := res.Header.Get("ETag")
	res = do(t, e.svc.Handler(), "HEAD", "/img/perfume-nobg/31861.webp", map[string]string{"If-None-Match": etag})
	wantHeaders(t, res, 304, nil)
}

func wantHeaders(t *testing.T, res *http.Response, status int, hdr map[string]string) {
	t.Helper()
	if res.StatusCode != status {
		t.Errorf("status %d, want %d", res.StatusCode, status)
	}
	for k, v := range hdr {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}
