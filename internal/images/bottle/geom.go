package bottle

import (
	"image"
	"image/color"
	"math"

	"golang.org/x/image/vector"

	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// Drawing helpers for the generated product images. Everything here uses
// only + − × ÷ and square roots, never math.Exp or math.Sin: those pick an
// FMA code path by CPU at run time, and a generated image must come out
// byte-identical on every replica so that its ETag is stable.

// pt is a point in pixel coordinates.
type pt struct{ X, Y float64 }

// rectF is a rectangle in pixel coordinates.
type rectF struct{ X0, Y0, X1, Y1 float64 }

func (r rectF) w() float64  { return r.X1 - r.X0 }
func (r rectF) h() float64  { return r.Y1 - r.Y0 }
func (r rectF) cx() float64 { return (r.X0 + r.X1) / 2 }

// inset shrinks r by d on every side.
func (r rectF) inset(d float64) rectF { return rectF{r.X0 + d, r.Y0 + d, r.X1 - d, r.Y1 - d} }

// quarter is the unit quarter circle as 9 points, from angle 0 to 90°
// (precomputed values, so no trigonometry runs while drawing).
var quarter = [9]pt{
	{1, 0}, {0.98079, 0.19509}, {0.92388, 0.38268}, {0.83147, 0.55557}, {0.70711, 0.70711},
	{0.55557, 0.83147}, {0.38268, 0.92388}, {0.19509, 0.98079}, {0, 1},
}

// roundRect is a rectangle with corners of radius rad as a polygon.
func roundRect(r rectF, rad float64) []pt {
	rad = math.Min(rad, math.Min(r.w(), r.h())/2)
	return roundPoly(r, [4]float64{rad, rad, rad, rad})
}

// roundPoly is a rectangle whose corners (top-left, top-right,
// bottom-right, bottom-left) have their own radii.
func roundPoly(r rectF, rad [4]float64) []pt {
	out := make([]pt, 0, 36)
	corner := func(cx, cy, rad, sx, sy float64, reverse bool) {
		for i := range quarter {
			q := quarter[i]
			if reverse {
				q = quarter[len(quarter)-1-i]
			}
			out = append(out, pt{cx + sx*q.X*rad, cy + sy*q.Y*rad})
		}
	}
	corner(r.X0+rad[0], r.Y0+rad[0], rad[0], -1, -1, false) // left edge → top edge
	corner(r.X1-rad[1], r.Y0+rad[1], rad[1], 1, -1, true)
	corner(r.X1-rad[2], r.Y1-rad[2], rad[2], 1, 1, false)
	corner(r.X0+rad[3], r.Y1-rad[3], rad[3], -1, 1, true)
	return out
}

// ellipse is the ellipse inscribed in r as a polygon.
func ellipse(r rectF) []pt {
	rx, ry := r.w()/2, r.h()/2
	cx, cy := r.cx(), (r.Y0+r.Y1)/2
	out := make([]pt, 0, 32)
	for _, s := range [4][2]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}} {
		for i := 0; i < len(quarter)-1; i++ {
			q := quarter[i]
			if s[0]*s[1] < 0 {
				q = quarter[len(quarter)-1-i]
			}
			out = append(out, pt{cx + s[0]*q.X*rx, cy + s[1]*q.Y*ry})
		}
	}
	return out
}

// trapezoid has its top edge topW wide and its bottom edge botW wide,
// centred in r, with slightly rounded corners.
func trapezoid(r rectF, topW, botW, rad float64) []pt {
	cx := r.cx()
	corners := []pt{{cx - topW/2, r.Y0}, {cx + topW/2, r.Y0}, {cx + botW/2, r.Y1}, {cx - botW/2, r.Y1}}
	return chamfer(corners, rad)
}

// chamfer cuts every corner of a convex polygon by d, a cheap rounding.
func chamfer(poly []pt, d float64) []pt {
	out := make([]pt, 0, 2*len(poly))
	n := len(poly)
	for i, p := range poly {
		prev, next := poly[(i+n-1)%n], poly[(i+1)%n]
		out = append(out, toward(p, prev, d), toward(p, next, d))
	}
	return out
}

// toward returns the point d along the segment from a to b.
func toward(a, b pt, d float64) pt {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Sqrt(dx*dx + dy*dy)
	if l == 0 || d >= l/2 {
		return pt{(a.X + b.X) / 2, (a.Y + b.Y) / 2}
	}
	return pt{a.X + dx*d/l, a.Y + dy*d/l}
}

// clipBelow keeps the part of a convex polygon at or below y (y grows
// downwards): the liquid inside a bottle filled up to y.
func clipBelow(poly []pt, y float64) []pt {
	var out []pt
	n := len(poly)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%n]
		ain, bin := a.Y >= y, b.Y >= y
		if ain {
			out = append(out, a)
		}
		if ain != bin {
			t := (y - a.Y) / (b.Y - a.Y)
			out = append(out, pt{a.X + t*(b.X-a.X), y})
		}
	}
	return out
}

// fill draws src through the anti-aliased polygon onto dst. The rasterizer
// covers only the polygon's bounding box; src is sampled at absolute
// canvas coordinates.
func fill(dst *image.RGBA, poly []pt, src image.Image) {
	if len(poly) < 3 {
		return
	}
	x0, y0, x1, y1 := poly[0].X, poly[0].Y, poly[0].X, poly[0].Y
	for _, p := range poly[1:] {
		x0, y0 = math.Min(x0, p.X), math.Min(y0, p.Y)
		x1, y1 = math.Max(x1, p.X), math.Max(y1, p.Y)
	}
	box := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(dst.Bounds())
	if box.Empty() {
		return
	}
	z := vector.NewRasterizer(box.Dx(), box.Dy())
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	z.MoveTo(float32(poly[0].X-ox), float32(poly[0].Y-oy))
	for _, p := range poly[1:] {
		z.LineTo(float32(p.X-ox), float32(p.Y-oy))
	}
	z.ClosePath()
	z.Draw(dst, box, src, box.Min)
}

// shade is a fill whose brightness varies across [x0, x1] like a lit
// cylinder: darker at both edges, brighter towards the left with a small
// specular streak. It implements image.Image over the whole plane.
type shade struct {
	c      color.NRGBA
	x0, x1 float64
	// dark is how much the edges darken (0–1); spec the strength of the
	// specular streak (0–1).
	dark, spec float64
}

// ColorModel implements image.Image.
func (s shade) ColorModel() color.Model { return color.RGBAModel }

// Bounds implements image.Image: a shade covers the whole plane.
func (s shade) Bounds() image.Rectangle { return image.Rect(-1e6, -1e6, 1e6, 1e6) }

// At returns the shaded colour at x; y does not matter.
func (s shade) At(x, _ int) color.Color {
	t := (float64(x) + 0.5 - s.x0) / (s.x1 - s.x0)
	t = math.Max(0, math.Min(1, t))
	body := 1 - s.dark + s.dark*4*t*(1-t)*1.05 // parabola instead of sin(πt)
	streak := s.spec * bump(t, 0.28, 0.09)
	mix := func(v uint8) uint8 {
		f := float64(v) * body
		f += (255 - math.Min(255, f)) * streak
		return pixel.Clamp8(f)
	}
	return color.RGBA{mix(s.c.R), mix(s.c.G), mix(s.c.B), 255}
}

// bump is a smooth bell of half-width w around c, 1 at the centre and 0
// beyond: a polynomial stand-in for a Gaussian.
func bump(t, c, w float64) float64 {
	d := (t - c) / w
	if d <= -1 || d >= 1 {
		return 0
	}
	u := 1 - d*d
	return u * u
}

// scale multiplies a colour's channels by f (darker below 1).
func scale(c color.NRGBA, f float64) color.NRGBA {
	return color.NRGBA{pixel.Clamp8(float64(c.R) * f), pixel.Clamp8(float64(c.G) * f), pixel.Clamp8(float64(c.B) * f), c.A}
}

// mixRGB blends a towards b by t (0 = a, 1 = b), keeping a's alpha.
func mixRGB(a, b color.NRGBA, t float64) color.NRGBA {
	m := func(x, y uint8) uint8 { return pixel.Clamp8(float64(x) + (float64(y)-float64(x))*t) }
	return color.NRGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), a.A}
}

// parseHex reads "#RRGGBB"; ok is false for anything else.
func parseHex(s string) (color.NRGBA, bool) {
	if len(s) != 7 || s[0] != '#' {
		return color.NRGBA{}, false
	}
	var v [3]uint8
	for i := range v {
		hi, ok1 := hexDigit(s[1+2*i])
		lo, ok2 := hexDigit(s[2+2*i])
		if !ok1 || !ok2 {
			return color.NRGBA{}, false
		}
		v[i] = hi<<4 | lo
	}
	return color.NRGBA{v[0], v[1], v[2], 255}, true
}

func hexDigit(c byte) (uint8, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
