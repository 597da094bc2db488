// Package cutout removes the background of product shots on a light or
// plain backdrop (RemoveBackground), for the transparent images of
// imported photos, and tells the backdrop colour of a photo (BorderColor).
// RemoveBackground works in five steps:
//
//  1. The backdrop colour is modelled from the image border (bgmodel.go),
//     so gradients and vignettes are followed, not just one colour.
//  2. A pixel may be background when its (lightly smoothed) colour is
//     within a tolerance of the model, or when it looks like a shadow: the
//     backdrop colour darkened with its hue kept, in a smooth region (a
//     bottle's outline is sharp, a soft shadow is not), and in the lower
//     part of the product's extent (shadows lie on the floor; a grey cap
//     at the top is never taken for one).
//  3. Only such pixels connected to the border are removed (a flood fill),
//     so white labels and caps inside the outline of the bottle stay.
//  4. Specks left in the background are dropped, and outline pixels that
//     the smoothing pulled into the product are given back.
//  5. Along the outline, alpha is estimated per pixel by matting: the pixel
//     is explained as a mix of a nearby foreground and a nearby background
//     colour, which gives soft anti-aliased edges and removes the backdrop's
//     colour from them (no white fringe on a dark page).
//
// It imports the standard library and images/pixel; nothing else of the
// service. Its tests measure it on the synthetic product shots of
// cutout/cutouttest, whose true masks are known.
package cutout

import (
	"errors"
	"image"
	"math"

	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// The tuning constants; the tests on generated scenes measure their effect.
const (
	// minTolerance and maxTolerance bound the colour distance under which
	// a pixel matches the backdrop; in between it is 5× the border noise.
	minTolerance = 8.0
	maxTolerance = 40.0
	// shadowMinK is the darkest shadow, as a share of the backdrop's
	// brightness, that is still removed.
	shadowMinK = 0.4
	// shadowMaxGradient is the steepest brightness change per pixel a
	// shadow may have.
	shadowMaxGradient = 14.0
)

// errNoProduct: almost nothing is left once the background is removed.
var errNoProduct = errors.New("no product found: removing the background leaves almost nothing")

// RemoveBackground returns img with the background connected to its
// border made transparent and soft alpha along the outline. It fails when
// the border is not a plain backdrop or nothing would be left.
func RemoveBackground(img image.Image) (*image.NRGBA, error) {
	src := newPlane(img)
	if src.w < 8 || src.h < 8 {
		return nil, errors.New("image too small for background removal")
	}
	sm := src.blur3()
	fit, err := fitBackground(sm)
	if err != nil {
		return nil, err
	}
	tol := math.Min(maxTolerance, math.Max(minTolerance, 5*fit.noise))
	m := fit.plane()
	near := nearBackdrop(sm, m, tol)
	// First pass without shadows finds the product (with its shadow); only
	// the lower part of that region may then be shadow. Caps and shoulders,
	// at the top, are never taken for a shadow however grey they are.
	first := flood(near, src.w, src.h)
	dropSpecks(first, src.w, src.h)
	top, bottom, ok := rowsSpanned(first, src.w)
	if !ok {
		return nil, errNoProduct
	}
	shadowFrom := top + (bottom-top)*45/100
	bg := flood(withShadows(near, sm, m, tol, shadowFrom), src.w, src.h)
	dropSpecks(bg, src.w, src.h)
	peel(bg, src, tol)
	fg := 0
	for _, b := range bg {
		if !b {
			fg++
		}
	}
	if fg < len(bg)/200 {
		return nil, errNoProduct
	}
	return matte(src, bg, m), nil
}

// nearBackdrop marks the pixels whose colour is within tol of the model.
func nearBackdrop(sm *plane, m *plane, tol float64) []bool {
	out := make([]bool, sm.w*sm.h)
	for y := 0; y < sm.h; y++ {
		for x := 0; x < sm.w; x++ {
			out[y*sm.w+x] = dist3(sm.at(x, y), m.at(x, y)) < tol
		}
	}
	return out
}

// withShadows adds to near the shadow-like pixels of rows from fromY down.
func withShadows(near []bool, sm *plane, m *plane, tol float64, fromY int) []bool {
	grad := sm.gradient()
	out := append([]bool(nil), near...)
	for y := max(fromY, 0); y < sm.h; y++ {
		for x := 0; x < sm.w; x++ {
			i := y*sm.w + x
			if !out[i] && grad[i] < shadowMaxGradient {
				out[i] = shadowLike(sm.at(x, y), m.at(x, y), tol)
			}
		}
	}
	return out
}

// rowsSpanned returns the first and last row holding foreground.
func rowsSpanned(bg []bool, w int) (top, bottom int, ok bool) {
	top, bottom = -1, -1
	for i, b := range bg {
		if !b {
			if top < 0 {
				top = i / w
			}
			bottom = i / w
		}
	}
	return top, bottom, top >= 0
}

// shadowLike reports whether c is the backdrop colour b darkened: the
// brightness ratio k is between shadowMinK and 1 and the colour is close to
// k·b.
func shadowLike(c, b [3]float64, tol float64) bool {
	bb := b[0]*b[0] + b[1]*b[1] + b[2]*b[2]
	if bb < 1 {
		return false
	}
	k := (c[0]*b[0] + c[1]*b[1] + c[2]*b[2]) / bb
	if k < shadowMinK || k >= 1 {
		return false
	}
	kb := [3]float64{k * b[0], k * b[1], k * b[2]}
	return dist3(c, kb) < tol+0.04*k*math.Sqrt(bb)
}

// flood returns the candidates 4-connected to the image border.
func flood(cand []bool, w, h int) []bool {
	bg := make([]bool, len(cand))
	queue := make([]int, 0, 4*(w+h))
	push := func(i int) {
		if cand[i] && !bg[i] {
			bg[i] = true
			queue = append(queue, i)
		}
	}
	for x := 0; x < w; x++ {
		push(x)
		push((h-1)*w + x)
	}
	for y := 0; y < h; y++ {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	return bg
}

// dropSpecks turns foreground islands smaller than a small share of the
// image into background: dust, noise and JPEG blocks in the backdrop.
func dropSpecks(bg []bool, w, h int) {
	minArea := max(24, w*h/4000)
	seen := make([]bool, len(bg))
	var comp, stack []int
	for start := range bg {
		if bg[start] || seen[start] {
			continue
		}
		comp, stack = comp[:0], append(stack[:0], start)
		seen[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, i)
			x, y := i%w, i/w
			for _, n := range [4]int{i - 1, i + 1, i - w, i + w} {
				if (n == i-1 && x == 0) || (n == i+1 && x == w-1) || (n == i-w && y == 0) || (n == i+w && y == h-1) {
					continue
				}
				if !bg[n] && !seen[n] {
					seen[n] = true
					stack = append(stack, n)
				}
			}
		}
		if len(comp) < minArea {
			for _, i := range comp {
				bg[i] = true
			}
		}
	}
}

// peel gives back to the background the outline pixels that the smoothing
// pulled into the foreground: a foreground pixel next to background whose
// own (unsmoothed) colour matches that background within tol. Two rounds
// undo the one-pixel spread of the 3×3 blur and a little JPEG ringing.
func peel(bg []bool, src *plane, tol float64) {
	w, h := src.w, src.h
	for range 2 {
		var flip []int
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := y*w + x
				if bg[i] {
					continue
				}
				var sum [3]float64
				n := 0
				for _, nb := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
					if nb[0] < 0 || nb[0] >= w || nb[1] < 0 || nb[1] >= h || !bg[nb[1]*w+nb[0]] {
						continue
					}
					c := src.at(nb[0], nb[1])
					sum[0], sum[1], sum[2] = sum[0]+c[0], sum[1]+c[1], sum[2]+c[2]
					n++
				}
				if n == 0 {
					continue
				}
				f := float64(n)
				if dist3(src.at(x, y), [3]float64{sum[0] / f, sum[1] / f, sum[2] / f}) < tol {
					flip = append(flip, i)
				}
			}
		}
		for _, i := range flip {
			bg[i] = true
		}
	}
}

// matte builds the output: opaque foreground, transparent background, and
// along the outline an alpha and colour estimated from nearby pure pixels.
func matte(src *plane, bg []bool, m *plane) *image.NRGBA {
	w, h := src.w, src.h
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	band := outline(bg, w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			o := out.PixOffset(x, y)
			c := src.at(x, y)
			a := 1.0
			switch {
			case band[i]:
				a, c = mix(src, bg, band, x, y, m)
			case bg[i]:
				a = 0
			}
			if a <= 0 {
				continue // transparent black
			}
			out.Pix[o], out.Pix[o+1], out.Pix[o+2] = pixel.Clamp8(c[0]), pixel.Clamp8(c[1]), pixel.Clamp8(c[2])
			out.Pix[o+3] = pixel.Clamp8(255 * a)
		}
	}
	return out
}

// outline marks the pixels with an adjacent pixel (4-connected) of the other class.
func outline(bg []bool, w, h int) []bool {
	band := make([]bool, len(bg))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			band[i] = (x > 0 && bg[i-1] != bg[i]) || (x < w-1 && bg[i+1] != bg[i]) ||
				(y > 0 && bg[i-w] != bg[i]) || (y < h-1 && bg[i+w] != bg[i])
		}
	}
	return band
}

// mix estimates the alpha and true colour of an outline pixel: of every
// pair of a pure foreground and a pure background pixel nearby, it takes
// the one whose linear mix explains the pixel best.
func mix(src *plane, bg, band []bool, x, y int, m *plane) (float64, [3]float64) {
	i := y*src.w + x
	c := src.at(x, y)
	var fs, bs [][3]float64
	for r := 2; r <= 3 && (len(fs) == 0 || len(bs) == 0); r++ {
		fs, bs = fs[:0], bs[:0]
		for yy := max(y-r, 0); yy <= min(y+r, src.h-1); yy++ {
			for xx := max(x-r, 0); xx <= min(x+r, src.w-1); xx++ {
				j := yy*src.w + xx
				if band[j] {
					continue
				}
				if bg[j] {
					bs = append(bs, src.at(xx, yy))
				} else {
					fs = append(fs, src.at(xx, yy))
				}
			}
		}
	}
	if len(bs) == 0 {
		bs = append(bs, m.at(x, y))
	}
	if len(fs) == 0 {
		fs = append(fs, c)
	}
	bestErr, bestA, bestF := math.Inf(1), 1.0, c
	if bg[i] {
		bestA = 0
	}
	for _, f := range fs {
		for _, b := range bs {
			fb := [3]float64{f[0] - b[0], f[1] - b[1], f[2] - b[2]}
			n := fb[0]*fb[0] + fb[1]*fb[1] + fb[2]*fb[2]
			if n < 100 { // foreground and background alike: no evidence
				continue
			}
			a := ((c[0]-b[0])*fb[0] + (c[1]-b[1])*fb[1] + (c[2]-b[2])*fb[2]) / n
			a = math.Max(0, math.Min(1, a))
			// Chromatic distortion: the miss measured against how far apart
			// F and B are, so near-alike pairs cannot win on noise.
			e := dist3(c, [3]float64{b[0] + a*fb[0], b[1] + a*fb[1], b[2] + a*fb[2]}) / math.Sqrt(n)
			if e < bestErr {
				bestErr, bestA, bestF = e, a, f
			}
		}
	}
	if bestA > 0.97 {
		return 1, c
	}
	return bestA, bestF
}

// sqrt32 is a float32 square root.
func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }
