package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeImageImportChangesURL, against the real binary: `fragrance
// images import` beside a running server must not change the bytes at an
// image URL the API keeps giving out, marked immutable for a year. The old
// URL is served with a short max-age, and the API gives
// a new URL, which is immutable.
func TestServeImageImportChangesURL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fragrance.db")
	base, _ := startServe(t, noEnv, "--db", db)
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "pro", "--email", "img@example.com"))
	_, list := getJSON(t, base+"/api/perfumes?limit=1", "X-API-Key", key)
	first := list["data"].([]any)[0].(map[string]any)
	slug, oldURL := first["slug"].(string), first["image"].(string)
	m := regexp.MustCompile(`/img/perfume/(\d+)\.jpg\?v=[0-9a-f]{12}$`).FindStringSubmatch(oldURL)
	if m == nil {
		t.Fatalf("image URL %q: want /img/perfume/<id>.jpg?v=<12 hex digits>", oldURL)
	}
	drawn, hdr := getImage(t, oldURL)
	if cc := hdr.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Fatalf("drawn image at its URL: Cache-Control %q, want immutable", cc)
	}

	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 300, 400))
	for y := range 400 {
		for x := range 300 {
			c := color.RGBA{240, 240, 236, 255}
			if x > 100 && x < 200 && y > 100 && y < 360 {
				c = color.RGBA{120, 20, 60, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, m[1]+".jpg"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	runCmd(t, "images", "import", "--db", db, dir)

	photo, hdr := getImage(t, oldURL)
	if bytes.Equal(photo, drawn) {
		t.Fatal("the old URL still serves the drawn bottle after the import")
	}
	if cc := hdr.Get("Cache-Control"); strings.Contains(cc, "immutable") || strings.Contains(cc, "31536000") {
		t.Errorf("the old URL with new bytes: Cache-Control %q, want a short max-age", cc)
	}
	// The API gives the new URL (within a second: kept answers are
	// refilled every second).
	var newURL string
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, detail := getJSON(t, base+"/api/perfumes/"+slug, "X-API-Key", key)
		if newURL, _ = detail["image"].(string); newURL != oldURL {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API still gives %s after the import", oldURL)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got, hdr := getImage(t, newURL)
	if !bytes.Equal(got, photo) {
		t.Error("the new URL does not serve the imported photo")
	}
	if cc := hdr.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("the new URL: Cache-Control %q, want immutable", cc)
	}
}

func getImage(t *testing.T, url string) ([]byte, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return b, resp.Header
}
