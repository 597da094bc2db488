package images

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"strconv"
	"testing"

	"github.com/fragrance-data/fragrance/internal/images/encode"
)

func FuzzParseImagePath(f *testing.F) {
	for _, s := range []string{"/perfume/1.jpg", "/perfume-nobg/31861.webp", "/perfume/01.jpg", "/perfume/.jpg",
		"/perfume/99999999999999999999.jpg", "/perfume/-1.jpg", "/perfume/1.jpg/x", "/perfume-nobg/1.jpg", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		kind, id, ok := parseImagePath(path)
		if !ok {
			return
		}
		if id < 0 {
			t.Fatalf("%q: negative id %d", path, id)
		}
		// Accepted paths are canonical: rebuilding one gives the same string.
		want := "/perfume/" + strconv.FormatInt(id, 10) + ".jpg"
		if kind == "nobg" {
			want = "/perfume-nobg/" + strconv.FormatInt(id, 10) + ".webp"
		}
		if path != want {
			t.Fatalf("%q accepted as %s %d, canonical %q", path, kind, id, want)
		}
	})
}

func FuzzParseNumericID(f *testing.F) {
	for _, s := range []string{"1", "0", "007", "31861", "dior-sauvage", "", "9223372036854775807", "1e5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := parseNumericID(s)
		if ok && (id < 0 || strconv.FormatInt(id, 10) != trimZeros(s)) {
			t.Fatalf("%q parsed as %d", s, id)
		}
	})
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

// FuzzNormalisePhoto feeds arbitrary bytes to the import decoder: it may
// refuse them but must not panic or produce images of the wrong size.
func FuzzNormalisePhoto(f *testing.F) {
	img := image.NewRGBA(image.Rect(0, 0, 8, 12))
	var j, p bytes.Buffer
	jpeg.Encode(&j, img, nil)
	png.Encode(&p, img)
	f.Add(j.Bytes())
	f.Add(p.Bytes())
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8L"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, photo, err := normalisePhoto(data)
		if err != nil {
			return
		}
		for _, c := range []struct {
			data []byte
			w, h int
		}{{src, encode.SourceWidth, encode.SourceHeight}, {photo, encode.PhotoWidth, encode.PhotoHeight}} {
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(c.data))
			if err != nil || cfg.Width != c.w || cfg.Height != c.h {
				t.Fatalf("normalised to %d×%d (%v), want %d×%d", cfg.Width, cfg.Height, err, c.w, c.h)
			}
		}
	})
}
