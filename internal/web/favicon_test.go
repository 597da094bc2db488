package web_test

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/web"
)

// TestFavicon: /favicon.ico is a Windows icon of PNG images (16, 32 and
// 48 pixels, transparent in the corners), revalidated by its ETag; every
// page links the SVG icon, which is served, and carries the theme colour.
func TestFavicon(t *testing.T) {
	h := servetest.NewServer(t, nil)
	rec := servetest.Do(t, h, "GET", "/favicon.ico")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/x-icon" || rec.Header().Get("ETag") == "" {
		t.Fatalf("GET /favicon.ico = %d %v", rec.Code, rec.Header())
	}
	ico := rec.Body.Bytes()
	le := binary.LittleEndian
	if len(ico) < 6 || le.Uint16(ico[0:]) != 0 || le.Uint16(ico[2:]) != 1 || le.Uint16(ico[4:]) != 3 {
		t.Fatalf("not an icon of three images: % x", ico[:min(6, len(ico))])
	}
	for i, want := range []int{16, 32, 48} {
		e := ico[6+16*i:]
		size, offset := le.Uint32(e[8:]), le.Uint32(e[12:])
		img, err := png.Decode(bytes.NewReader(ico[offset : offset+size]))
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if b := img.Bounds(); int(e[0]) != want || b.Dx() != want || b.Dy() != want {
			t.Errorf("image %d: entry %d px, image %v, want %d", i, e[0], b, want)
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("image %d: the corner is not transparent", i)
		}
		if _, _, _, a := img.At(want/2, want-2).RGBA(); a != 0xffff {
			t.Errorf("image %d: the middle is not opaque", i)
		}
	}
	if again := servetest.Do(t, h, "GET", "/favicon.ico", "If-None-Match", rec.Header().Get("ETag")); again.Code != 304 {
		t.Errorf("revalidated: %d", again.Code)
	}

	page := servetest.Do(t, h, "GET", "/privacy").Body.String()
	if !strings.Contains(page, `<meta name="theme-color" content="`+web.ThemeColor+`">`) {
		t.Error("the page has no theme-color of the accent colour")
	}
	m := regexp.MustCompile(`<link rel="icon" href="(/assets/favicon\.[0-9a-f]+\.svg)" type="image/svg\+xml">`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `<link rel="icon" href="/favicon.ico"`) {
		t.Fatal("the page does not link both icons")
	}
	svg := servetest.Do(t, h, "GET", m[1])
	if svg.Code != 200 || svg.Header().Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.Body.String(), `fill="`+web.ThemeColor+`"`) {
		t.Errorf("GET %s = %d %q", m[1], svg.Code, svg.Header().Get("Content-Type"))
	}
}
