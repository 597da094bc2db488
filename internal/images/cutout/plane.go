package cutout

import (
	"image"
	"image/color"
	"image/draw"
)

// plane is an opaque RGB image as float32 triples, row-major: the working
// form of background removal.
type plane struct {
	w, h int
	px   []float32
}

// newPlane converts img; transparent parts of the input are composited
// over white, the backdrop a product photo would have had.
func newPlane(img image.Image) *plane {
	b := img.Bounds()
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Over)
	p := &plane{w: b.Dx(), h: b.Dy(), px: make([]float32, 3*b.Dx()*b.Dy())}
	for y := 0; y < p.h; y++ {
		row := rgba.Pix[y*rgba.Stride:]
		out := p.px[3*y*p.w:]
		for x := 0; x < p.w; x++ {
			out[3*x], out[3*x+1], out[3*x+2] = float32(row[4*x]), float32(row[4*x+1]), float32(row[4*x+2])
		}
	}
	return p
}

// at returns the colour at (x, y).
func (p *plane) at(x, y int) [3]float64 {
	i := 3 * (y*p.w + x)
	return [3]float64{float64(p.px[i]), float64(p.px[i+1]), float64(p.px[i+2])}
}

// blur3 returns p smoothed by a 3×3 box (edges clamped): classification
// reads the smoothed image so that sensor noise and JPEG ringing do not
// punch holes in the background.
func (p *plane) blur3() *plane {
	tmp := make([]float32, len(p.px))
	out := &plane{w: p.w, h: p.h, px: make([]float32, len(p.px))}
	for y := 0; y < p.h; y++ { // horizontal pass
		for x := 0; x < p.w; x++ {
			l, r := max(x-1, 0), min(x+1, p.w-1)
			for c := range 3 {
				i := 3*(y*p.w) + c
				tmp[i+3*x] = (p.px[i+3*l] + p.px[i+3*x] + p.px[i+3*r]) / 3
			}
		}
	}
	for y := 0; y < p.h; y++ { // vertical pass
		u, d := max(y-1, 0), min(y+1, p.h-1)
		for i := 3 * y * p.w; i < 3*(y+1)*p.w; i++ {
			j := i - 3*y*p.w
			out.px[i] = (tmp[3*u*p.w+j] + tmp[i] + tmp[3*d*p.w+j]) / 3
		}
	}
	return out
}

// gradient returns the Sobel gradient magnitude of p's brightness, scaled
// so that a sharp step of s levels reads about s.
func (p *plane) gradient() []float32 {
	lum := make([]float32, p.w*p.h)
	for i := range lum {
		lum[i] = 0.299*p.px[3*i] + 0.587*p.px[3*i+1] + 0.114*p.px[3*i+2]
	}
	g := make([]float32, len(lum))
	at := func(x, y int) float32 {
		return lum[min(max(y, 0), p.h-1)*p.w+min(max(x, 0), p.w-1)]
	}
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			gx := at(x+1, y-1) + 2*at(x+1, y) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x-1, y) - at(x-1, y+1)
			gy := at(x-1, y+1) + 2*at(x, y+1) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x, y-1) - at(x+1, y-1)
			g[y*p.w+x] = sqrt32(gx*gx+gy*gy) / 4
		}
	}
	return g
}
