package bottle

import (
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// bodyShape is the silhouette of a bottle's body.
type bodyShape int

const (
	shapeFlacon   bodyShape = iota // upright rectangle, small radius
	shapeSlim                      // tall narrow column
	shapeCylinder                  // round-cornered cylinder
	shapeFlask                     // wider at the base
	shapeRound                     // ball
	shapeShoulder                  // rectangle with rounded shoulders
	shapeFacet                     // chamfered, octagon-like
	shapeFan                       // wider at the top
	numShapes
)

// capShape is the silhouette of a cap.
type capShape int

const (
	capCylinder capShape = iota
	capTall
	capBlock
	capBall
	capFacet
	numCaps
)

// bottle is everything a generated image shows.
type bottle struct {
	shape    bodyShape
	capShape capShape
	capColor color.NRGBA
	collar   color.NRGBA
	liquid   color.NRGBA
	// labelBg and labelInk colour the label; fill is the liquid level as a
	// share of the body height.
	labelBg, labelInk color.NRGBA
	fill              float64
	// widthF and heightF size the body as shares of the canvas.
	widthF, heightF float64
	brand, name     string
	concentration   string
}

var (
	capColors = []color.NRGBA{
		{28, 28, 30, 255},    // black
		{201, 169, 75, 255},  // gold
		{192, 196, 200, 255}, // silver
		{242, 242, 240, 255}, // white
		{120, 86, 60, 255},   // wood
		{0, 0, 0, 0},         // the liquid's colour, darkened (filled in later)
	}
	metals = []color.NRGBA{{201, 169, 75, 255}, {192, 196, 200, 255}, {60, 60, 64, 255}}
	labels = [][2]color.NRGBA{
		{{246, 241, 230, 255}, {40, 36, 32, 255}}, // cream, dark ink
		{{255, 255, 255, 255}, {20, 20, 20, 255}}, // white, black ink
		{{30, 30, 32, 255}, {214, 186, 110, 255}}, // black, gold ink
		{{232, 226, 216, 255}, {90, 60, 40, 255}}, // parchment, brown ink
	}
	// defaultLiquid is a pale amber for perfumes without accords.
	defaultLiquid = color.NRGBA{232, 193, 122, 255}
)

// bottleFor derives the bottle of a perfume. accordColor maps an accord
// name to "#RRGGBB"; it may be nil.
func bottleFor(p catalog.Perfume, accordColor func(string) string) bottle {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(p.Brand))))
	bits := h.Sum64()
	take := func(n uint64) uint64 { v := bits % n; bits /= n; return v }

	b := bottle{
		shape:         bodyShape(take(uint64(numShapes))),
		capShape:      capShape(take(uint64(numCaps))),
		capColor:      capColors[take(uint64(len(capColors)))],
		collar:        metals[take(uint64(len(metals)))],
		liquid:        liquidColor(p, accordColor),
		brand:         p.Brand,
		name:          p.Name,
		concentration: p.Concentration,
	}
	lab := labels[take(uint64(len(labels)))]
	b.labelBg, b.labelInk = lab[0], lab[1]
	b.widthF = 0.38 + float64(take(9))*0.01
	b.heightF = 0.45 + float64(take(9))*0.01
	// The liquid level varies by perfume, so bottles of a brand differ a little.
	b.fill = 0.70 + float64(uint64(p.ID)%7)*0.03
	if b.capColor.A == 0 {
		b.capColor = scale(b.liquid, 0.45)
		b.capColor.A = 255
	}
	switch b.shape {
	case shapeSlim:
		b.widthF *= 0.62
		b.heightF *= 1.18
	case shapeRound:
		b.heightF = b.widthF * 0.75 * 1.1 // a ball: as tall as wide on a 3:4 canvas
		b.widthF *= 1.1
	case shapeFan, shapeFlask:
		b.widthF *= 1.08
	}
	return b
}

// liquidColor is the colour of the perfume's strongest accord.
func liquidColor(p catalog.Perfume, accordColor func(string) string) color.NRGBA {
	if accordColor == nil || len(p.Accords) == 0 {
		return defaultLiquid
	}
	best := p.Accords[0]
	for _, a := range p.Accords[1:] {
		if a.Strength > best.Strength {
			best = a
		}
	}
	if c, ok := parseHex(accordColor(best.Name)); ok {
		return c
	}
	return defaultLiquid
}

// layout places the parts of a bottle on a w×h canvas.
type layout struct {
	body, neck, capR rectF
	floor            float64
	rim              float64 // outline width of every part
}

func (b bottle) layout(w, h int) layout {
	W, H := float64(w), float64(h)
	var l layout
	l.floor = 0.88 * H
	l.rim = math.Max(1.5, W/260)
	bw, bh := b.widthF*W, b.heightF*H
	l.body = rectF{W/2 - bw/2, l.floor - bh, W/2 + bw/2, l.floor}
	nw := math.Max(bw*0.28, W*0.07)
	if b.shape == shapeSlim {
		nw = bw * 0.5
	}
	nh := H * 0.035
	l.neck = rectF{W/2 - nw/2, l.body.Y0 - nh + l.rim, W/2 + nw/2, l.body.Y0 + l.rim}
	cw, ch := nw*1.6, H*0.12
	switch b.capShape {
	case capTall:
		cw, ch = nw*1.25, H*0.19
	case capBlock:
		cw, ch = math.Min(bw*0.8, nw*2.6), H*0.10
	case capBall:
		cw = math.Min(bw*0.7, nw*2.2)
		ch = cw // pixels are square: a ball is as tall as wide
	case capFacet:
		cw, ch = nw*2.0, H*0.13
	}
	l.capR = rectF{W/2 - cw/2, l.neck.Y0 - ch + l.rim, W/2 + cw/2, l.neck.Y0 + l.rim}
	return l
}

// bodyPoly is the body's outline within r.
func (b bottle) bodyPoly(r rectF) []pt {
	w := r.w()
	switch b.shape {
	case shapeSlim:
		return roundRect(r, w*0.18)
	case shapeCylinder:
		return roundRect(r, w*0.3)
	case shapeFlask:
		return trapezoid(r, w*0.72, w, w*0.08)
	case shapeRound:
		return ellipse(r)
	case shapeShoulder:
		return roundPoly(r, [4]float64{w * 0.32, w * 0.32, w * 0.06, w * 0.06})
	case shapeFacet:
		return chamfer([]pt{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X1, r.Y1}, {r.X0, r.Y1}}, w*0.2)
	case shapeFan:
		return trapezoid(r, w, w*0.74, w*0.08)
	}
	return roundRect(r, w*0.06)
}

// capPoly is the cap's outline within r.
func (b bottle) capPoly(r rectF) []pt {
	switch b.capShape {
	case capBall:
		return ellipse(r)
	case capFacet:
		return chamfer([]pt{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X1, r.Y1}, {r.X0, r.Y1}}, r.w()*0.28)
	case capBlock:
		return roundRect(r, r.w()*0.05)
	}
	return roundRect(r, r.w()*0.1)
}

// part draws one solid part: a darker outline, then the shaded inside.
// Product photos show such contours, and they are what lets background
// removal keep a white cap on a white background.
func part(dst *image.RGBA, outer func(rectF) []pt, r rectF, rim float64, c color.NRGBA, dark, spec float64) {
	fill(dst, outer(r), image.NewUniform(scale(c, 0.62)))
	in := r.inset(rim)
	fill(dst, outer(in), shade{c: c, x0: in.X0, x1: in.X1, dark: dark, spec: spec})
}

// drawBottle draws the bottle (no background) onto dst.
func (b bottle) drawBottle(dst *image.RGBA, l layout, text *labelFonts) {
	rect := func(r rectF) []pt { return roundRect(r, r.w()*0.06) }
	part(dst, rect, l.neck, l.rim, b.collar, 0.45, 0.5)

	glass := mixRGB(b.liquid, color.NRGBA{250, 250, 250, 255}, 0.55)
	part(dst, b.bodyPoly, l.body, l.rim, glass, 0.25, 0.35)
	inner := l.body.inset(l.rim * 3)
	level := inner.Y1 - inner.h()*b.fill
	fill(dst, clipBelow(b.bodyPoly(inner), level), shade{c: b.liquid, x0: inner.X0, x1: inner.X1, dark: 0.35, spec: 0.25})

	hl := rectF{l.body.X0 + l.body.w()*0.14, l.body.Y0 + l.body.h()*0.1, l.body.X0 + l.body.w()*0.2, l.body.Y1 - l.body.h()*0.12}
	fill(dst, roundRect(hl, hl.w()/2), image.NewUniform(color.NRGBA{255, 255, 255, 70}))

	part(dst, b.capPoly, l.capR, l.rim, b.capColor, 0.4, 0.45)
	b.drawLabel(dst, l, text)
}

// background paints the studio backdrop: a soft vertical gradient and a
// soft shadow under the bottle.
func background(dst *image.RGBA, l layout) {
	bnd := dst.Bounds()
	H := float64(bnd.Dy())
	sx, sy := l.body.w()*0.75, l.body.w()*0.11
	cx := l.body.cx()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		t := float64(y) / H
		base := 247 - 16*t*t
		row := dst.Pix[(y-bnd.Min.Y)*dst.Stride:]
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			dx, dy := (float64(x)+0.5-cx)/sx, (float64(y)+0.5-l.floor)/sy
			d := dx*dx + dy*dy
			v := base
			if d < 1 {
				u := 1 - d
				v *= 1 - 0.28*u*u
			}
			g := pixel.Clamp8(v)
			i := (x - bnd.Min.X) * 4
			row[i], row[i+1], row[i+2], row[i+3] = g, g, pixel.Clamp8(v*0.985), 255
		}
	}
}

// render draws the product image of b on a w×h canvas; with backdrop false
// the background stays transparent (the exact transparent image).
func (b bottle) render(w, h int, backdrop bool, text *labelFonts) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	l := b.layout(w, h)
	if backdrop {
		background(dst, l)
	}
	b.drawBottle(dst, l, text)
	return dst
}
