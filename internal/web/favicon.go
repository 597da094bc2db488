package web

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// The service's icon, a bottle on the accent colour, is one list of
// rounded rectangles: the SVG every page links (favicon.svg, an asset
// under a hashed name) and /favicon.ico, which browsers and feed readers
// ask for without reading the page, are both made from it, so the two
// cannot drift apart.

// ThemeColor is the accent colour of the pages (style.css's --accent),
// the browser's theme-color and the icon's ground.
const ThemeColor = "#5b2a86"

// iconShape is one rounded rectangle of the icon, in the units of a
// 32×32 square, painted over the shapes before it.
type iconShape struct {
	x, y, w, h, r float64
	fill          string // "#RRGGBB"
}

// iconShapes draw the icon: the ground, the cap, the neck, the bottle
// and its label.
var iconShapes = []iconShape{
	{0, 0, 32, 32, 7, ThemeColor},
	{12.5, 4, 7, 5.5, 1.5, "#f3ecfa"},
	{14, 9.5, 4, 3.5, 0, "#c9b3e0"},
	{7.5, 13, 17, 15, 4.5, "#ffffff"},
	{11, 17.5, 10, 6, 1.5, "#b89ad6"},
}

// iconSVG is the icon as an SVG document.
func iconSVG() []byte {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">`)
	for _, s := range iconShapes {
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s"/>`, s.x, s.y, s.w, s.h, s.r, s.fill)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// iconICO is the icon as a Windows icon file holding PNG images of the
// sizes given (each at most 256), as every browser since 2010 reads it.
func iconICO(sizes ...int) ([]byte, error) {
	var images [][]byte
	for _, n := range sizes {
		var b bytes.Buffer
		if err := png.Encode(&b, iconImage(n)); err != nil {
			return nil, fmt.Errorf("web: favicon %dpx: %w", n, err)
		}
		images = append(images, b.Bytes())
	}
	var out bytes.Buffer
	le := binary.LittleEndian
	out.Write(le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0), 1), uint16(len(sizes)))) // reserved, type 1 (icon), count
	offset := 6 + 16*len(sizes)
	for i, n := range sizes {
		dim := byte(n % 256) // 0 stands for 256
		entry := []byte{dim, dim, 0, 0}
		entry = le.AppendUint16(entry, 1)  // colour planes
		entry = le.AppendUint16(entry, 32) // bits per pixel
		entry = le.AppendUint32(entry, uint32(len(images[i])))
		entry = le.AppendUint32(entry, uint32(offset))
		out.Write(entry)
		offset += len(images[i])
	}
	for _, img := range images {
		out.Write(img)
	}
	return out.Bytes(), nil
}

// iconImage paints the icon n pixels square, each pixel the mean of 4×4
// samples so that the rounded corners are smooth.
func iconImage(n int) *image.NRGBA {
	const ss = 4
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	scale := 32 / float64(n)
	for py := range n {
		for px := range n {
			var r, g, b, a float64 // premultiplied sums
			for sy := range ss {
				for sx := range ss {
					x := (float64(px) + (float64(sx)+0.5)/ss) * scale
					y := (float64(py) + (float64(sy)+0.5)/ss) * scale
					var cr, cg, cb, ca float64
					for _, s := range iconShapes {
						if !s.contains(x, y) {
							continue
						}
						fr, fg, fb := hexRGB(s.fill)
						cr, cg, cb, ca = fr, fg, fb, 1 // every shape is opaque
					}
					r, g, b, a = r+cr*ca, g+cg*ca, b+cb*ca, a+ca
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{R: byte(r/a + 0.5), G: byte(g/a + 0.5), B: byte(b/a + 0.5), A: byte(a/ss/ss*255 + 0.5)})
		}
	}
	return img
}

// contains reports whether the point (x, y) is inside the rounded
// rectangle s.
func (s iconShape) contains(x, y float64) bool {
	if x < s.x || y < s.y || x > s.x+s.w || y > s.y+s.h {
		return false
	}
	r := math.Min(s.r, math.Min(s.w, s.h)/2)
	cx := math.Min(math.Max(x, s.x+r), s.x+s.w-r)
	cy := math.Min(math.Max(y, s.y+r), s.y+s.h-r)
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
}

// hexRGB reads "#RRGGBB" (the icon's own colours, always well formed).
func hexRGB(s string) (r, g, b float64) {
	v, _ := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	return float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff)
}

// favicon is GET /favicon.ico: the icon, cached for a day (its address
// carries no hash, so it cannot be immutable).
func (s *Ground) favicon(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "image/x-icon")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("ETag", s.icon.etag)
	if r.Header.Get("If-None-Match") == s.icon.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(s.icon.body)))
	w.Write(s.icon.body)
}
