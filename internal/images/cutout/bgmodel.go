package cutout

import (
	"errors"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// The background model: each colour channel is a quadratic surface over
// the image (1, u, v, u², v², uv), fitted to the pixels along the border.
// A quadratic covers plain backdrops, linear gradients and the gentle
// vignette of a studio sweep. The fit is robust (iteratively reweighted,
// Tukey's biweight), so a bottle that touches the border does not drag it.

// nBasis is the number of terms of the quadratic surface.
const nBasis = 6

// bgModel is a fitted background: coef[c] are the terms of channel c.
type bgModel struct {
	w, h int
	coef [3][nBasis]float64
	// noise is a robust estimate of how far background pixels stray from
	// the model (RGB distance, 0–441), measured on the border.
	noise float64
	// inliers is the share of border samples the model explains.
	inliers float64
}

// errNoPlainBackground: the border is too varied to be a backdrop (a
// lifestyle photo, a crop through the product).
var errNoPlainBackground = errors.New("background is not plain: the image border varies too much")

// basis fills the terms at pixel (x, y).
func (m *bgModel) basis(x, y int, out *[nBasis]float64) {
	u := (float64(x)+0.5)/float64(m.w) - 0.5
	v := (float64(y)+0.5)/float64(m.h) - 0.5
	*out = [nBasis]float64{1, u, v, u * u, v * v, u * v}
}

// at returns the model colour at (x, y).
func (m *bgModel) at(x, y int) [3]float64 {
	var b [nBasis]float64
	m.basis(x, y, &b)
	var out [3]float64
	for c := range out {
		for i, t := range b {
			out[c] += m.coef[c][i] * t
		}
	}
	return out
}

// plane renders the model as an image, so that classification reads the
// backdrop colour of a pixel instead of evaluating the surface each time.
func (m *bgModel) plane() *plane {
	p := &plane{w: m.w, h: m.h, px: make([]float32, 3*m.w*m.h)}
	for y := 0; y < m.h; y++ {
		for x := 0; x < m.w; x++ {
			c := m.at(x, y)
			i := 3 * (y*m.w + x)
			p.px[i], p.px[i+1], p.px[i+2] = float32(c[0]), float32(c[1]), float32(c[2])
		}
	}
	return p
}

// sample is one border pixel.
type sample struct {
	x, y int
	c    [3]float64
}

// borderSamples takes pixels of a band of width bw along the four edges,
// at most about 6000 of them, evenly spread.
func borderSamples(p *plane, bw int) []sample {
	perim := 2 * (p.w + p.h) * bw
	step := max(1, perim/6000)
	var out []sample
	i := 0
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			if x >= bw && x < p.w-bw && y >= bw && y < p.h-bw {
				x = p.w - bw - 1 // jump across the interior
				continue
			}
			if i%step == 0 {
				out = append(out, sample{x, y, p.at(x, y)})
			}
			i++
		}
	}
	return out
}

// fitBackground fits the model to the border of p.
func fitBackground(p *plane) (*bgModel, error) {
	m := &bgModel{w: p.w, h: p.h}
	bw := max(2, min(p.w, p.h)/60)
	ss := borderSamples(p, bw)
	if len(ss) < 3*nBasis {
		return nil, errors.New("image too small to estimate its background")
	}
	wts := initialWeights(ss)
	res := make([]float64, len(ss))
	for range 8 {
		if !m.solve(ss, wts) {
			return nil, errNoPlainBackground
		}
		for i, s := range ss {
			res[i] = dist3(s.c, m.at(s.x, s.y))
		}
		scale := math.Max(1.4826*median(res), 0.75)
		cut := 4.685 * scale
		for i, r := range res {
			if r < cut {
				u := 1 - (r/cut)*(r/cut)
				wts[i] = u * u
			} else {
				wts[i] = 0
			}
		}
	}
	var in []float64
	for i, r := range res {
		if wts[i] > 0 {
			in = append(in, r)
		}
	}
	m.inliers = float64(len(in)) / float64(len(res))
	m.noise = 1.4826 * median(in)
	if m.inliers < 0.45 || m.noise > 24 {
		return nil, errNoPlainBackground
	}
	return m, nil
}

// initialWeights keeps the samples near the border's median colour, a
// start that a product covering part of the border cannot capture.
func initialWeights(ss []sample) []float64 {
	var med [3]float64
	col := make([]float64, len(ss))
	for c := range med {
		for i, s := range ss {
			col[i] = s.c[c]
		}
		med[c] = median(col)
	}
	d := make([]float64, len(ss))
	for i, s := range ss {
		d[i] = dist3(s.c, med)
	}
	cut := math.Max(3*1.4826*median(d), 30)
	w := make([]float64, len(ss))
	for i := range d {
		if d[i] < cut {
			w[i] = 1
		}
	}
	return w
}

// solve fits the coefficients by weighted least squares; false when the
// normal equations are singular (too few weighted samples).
func (m *bgModel) solve(ss []sample, wts []float64) bool {
	var a [nBasis][nBasis]float64
	var rhs [3][nBasis]float64
	var b [nBasis]float64
	for i, s := range ss {
		if wts[i] == 0 {
			continue
		}
		m.basis(s.x, s.y, &b)
		for r := range nBasis {
			wb := wts[i] * b[r]
			for c := range nBasis {
				a[r][c] += wb * b[c]
			}
			for ch := range 3 {
				rhs[ch][r] += wb * s.c[ch]
			}
		}
	}
	// A touch of ridge keeps the quadratic terms at zero when only part of
	// the border is usable (e.g. one side covered by the product).
	for r := 1; r < nBasis; r++ {
		a[r][r] += 1e-3 * (a[0][0] + 1)
	}
	for ch := range 3 {
		x, ok := solveLinear(a, rhs[ch])
		if !ok {
			return false
		}
		m.coef[ch] = x
	}
	return true
}

// solveLinear solves a·x = b by Gaussian elimination with partial pivoting.
func solveLinear(a [nBasis][nBasis]float64, b [nBasis]float64) ([nBasis]float64, bool) {
	for col := range nBasis {
		piv := col
		for r := col + 1; r < nBasis; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if math.Abs(a[piv][col]) < 1e-9 {
			return b, false
		}
		a[col], a[piv] = a[piv], a[col]
		b[col], b[piv] = b[piv], b[col]
		for r := col + 1; r < nBasis; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c < nBasis; c++ {
				a[r][c] -= f * a[col][c]
			}
			b[r] -= f * b[col]
		}
	}
	var x [nBasis]float64
	for r := nBasis - 1; r >= 0; r-- {
		s := b[r]
		for c := r + 1; c < nBasis; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// BorderColor is the colour of img's backdrop as its border shows it: the
// median colour of the outermost pixels, transparent ones counting as
// white (as for RemoveBackground). An import of another shape is padded
// with it, so that the padding passes for backdrop.
func BorderColor(img image.Image) color.Color {
	b := img.Bounds()
	var rs, gs, bs []float64
	add := func(x, y int) {
		r, g, bl, a := img.At(x, y).RGBA()
		wt := float64(0xffff - a) // composite over white
		rs = append(rs, (float64(r)+wt)/257)
		gs = append(gs, (float64(g)+wt)/257)
		bs = append(bs, (float64(bl)+wt)/257)
	}
	stepX, stepY := max(1, b.Dx()/200), max(1, b.Dy()/200)
	for x := b.Min.X; x < b.Max.X; x += stepX {
		add(x, b.Min.Y)
		add(x, b.Max.Y-1)
	}
	for y := b.Min.Y; y < b.Max.Y; y += stepY {
		add(b.Min.X, y)
		add(b.Max.X-1, y)
	}
	return color.RGBA{pixel.Clamp8(median(rs)), pixel.Clamp8(median(gs)), pixel.Clamp8(median(bs)), 255}
}

// median of v (left as it was); 0 for an empty slice.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// dist3 is the Euclidean distance of two colours.
func dist3(a, b [3]float64) float64 {
	d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(d0*d0 + d1*d1 + d2*d2)
}
