// Package cutouttest makes synthetic product shots with a known mask, for
// measuring background removal (cutout) and what builds on it: a sample
// bottle drawn by images/bottle, whose alpha is the truth, placed on a
// studio backdrop (plain, graded or vignetted), with a soft shadow, sensor
// noise and JPEG compression. The shots are deterministic.
//
// It imports the standard library, images/bottle and images/pixel; only
// tests import it.
package cutouttest

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// backdrop gives the colour of the studio background at (x, y) of a w×h image.
type backdrop struct {
	name string
	at   func(x, y, w, h int) [3]float64
}

var backdrops = []backdrop{
	{"white", func(x, y, w, h int) [3]float64 { return [3]float64{255, 255, 255} }},
	{"light grey", func(x, y, w, h int) [3]float64 { return [3]float64{228, 228, 228} }},
	{"mid grey", func(x, y, w, h int) [3]float64 { return [3]float64{140, 141, 143} }},
	{"vertical gradient", func(x, y, w, h int) [3]float64 {
		v := 252 - 55*float64(y)/float64(h)
		return [3]float64{v, v, v + 2}
	}},
	{"horizontal blue gradient", func(x, y, w, h int) [3]float64 {
		t := float64(x) / float64(w)
		return [3]float64{240 - 30*t, 242 - 27*t, 250 - 20*t}
	}},
	{"vignette", func(x, y, w, h int) [3]float64 {
		dx, dy := float64(x)/float64(w)-0.5, float64(y)/float64(h)-0.45
		v := 255 - 120*(dx*dx+dy*dy)
		return [3]float64{v, v, v}
	}},
	{"beige", func(x, y, w, h int) [3]float64 { return [3]float64{238, 230, 218} }},
	{"near white", func(x, y, w, h int) [3]float64 { return [3]float64{246, 246, 244} }},
}

// Scene is one synthetic product shot.
type Scene struct {
	Name  string      // backdrop, bottle shape, "white cap" and "shadow" as they apply
	Image image.Image // what background removal gets (JPEG-decoded)
	Truth []bool      // true where the product is, row by row
	W, H  int         // the size of Image
}

// MakeScene builds case i (any i ≥ 0) of the varied set at w×h: the
// backdrops, the sample bottles and the kinds of shadow take turns with i.
func MakeScene(t testing.TB, i, w, h int, painter *bottle.Painter) Scene {
	t.Helper()
	smp := painter.Sample(i, w, h)
	bd := backdrops[i%len(backdrops)]
	fgImg := smp.Image
	shadow := i%3 != 2
	rng := rand.New(rand.NewPCG(uint64(i), 7))

	scn := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := bd.at(x, y, w, h)
			k := 1.0
			if shadow {
				k = shadowFactor(x, y, smp, i%2 == 0)
			}
			o := scn.PixOffset(x, y)
			for ch := range 3 {
				scn.Pix[o+ch] = pixel.Clamp8(c[ch] * k)
			}
			scn.Pix[o+3] = 255
		}
	}
	draw.Draw(scn, scn.Bounds(), fgImg, image.Point{}, draw.Over)
	// Sensor noise, σ ≈ 2: the sum of two uniform draws per channel.
	for j := range scn.Pix {
		if j%4 != 3 {
			r := rng.Uint32()
			n := float64(r&0xff) + float64(r>>8&0xff) - 255 // triangular, σ ≈ 104
			scn.Pix[j] = pixel.Clamp8(float64(scn.Pix[j]) + n/52)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, scn, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]bool, w*h)
	for j := range truth {
		truth[j] = fgImg.Pix[4*j+3] >= 128
	}
	name := bd.name + "/" + smp.Name
	if shadow {
		name += "/shadow"
	}
	return Scene{Name: name, Image: dec, Truth: truth, W: w, H: h}
}

// shadowFactor darkens the floor under the bottle: a soft contact shadow,
// and for cast a long soft shadow falling to the right.
func shadowFactor(x, y int, s bottle.Sample, cast bool) float64 {
	cx := s.CenterX
	dx, dy := (float64(x)-cx)/(s.BodyWidth*0.8), (float64(y)-s.Floor)/(s.BodyWidth*0.14)
	k := 1.0
	if d := dx*dx + dy*dy; d < 1 {
		u := 1 - d
		k -= 0.35 * u * u
	}
	if cast {
		dx = (float64(x) - cx - s.BodyWidth*0.9) / (s.BodyWidth * 1.1)
		dy = (float64(y) - s.Floor + s.BodyHeight*0.05) / (s.BodyWidth * 0.2)
		if d := dx*dx + dy*dy; d < 1 {
			u := 1 - d
			k -= 0.2 * u * u
		}
	}
	return k
}
