package bottle

import (
	"image"
	"image/color"
)

// The samples are a varied set of bottles of no perfume, for measuring
// what processes product images (background removal): sample i takes the
// body shapes, caps, cap colours, collars and liquid colours in turn, each
// with a white label; every fourth has a white cap.

// A Sample is a sample bottle on a transparent canvas, with where it
// stands, so that a test can lay a shadow under it.
type Sample struct {
	// Image is the bottle alone: its alpha is the true mask of the product.
	Image *image.RGBA
	// Name is the body shape, followed by "/white cap" when the cap is white.
	Name string
	// CenterX is the middle of the body, BodyWidth and BodyHeight its size
	// and Floor the row the bottle stands on, in pixels.
	CenterX, BodyWidth, BodyHeight, Floor float64
}

// sampleLiquids are the liquid colours of the samples.
var sampleLiquids = []color.NRGBA{
	{255, 254, 192, 255}, // vanilla: pale yellow
	{119, 68, 20, 255},   // woody: dark brown
	{254, 12, 81, 255},   // rose
	{160, 160, 160, 255}, // neutral grey
	{55, 160, 137, 255},  // aromatic green
	{249, 255, 82, 255},  // citrus
}

// shapeNames name the body shapes in samples' names.
var shapeNames = []string{"flacon", "slim", "cylinder", "flask", "round", "shoulder", "facet", "fan"}

// Sample draws sample i (any i ≥ 0) on a w×h canvas.
func (pa *Painter) Sample(i, w, h int) Sample {
	b := bottle{
		shape:         bodyShape((i + i/8) % int(numShapes)),
		capShape:      capShape(i % int(numCaps)),
		capColor:      capColors[i%len(capColors)],
		collar:        metals[i%len(metals)],
		liquid:        sampleLiquids[i%len(sampleLiquids)],
		labelBg:       color.NRGBA{255, 255, 255, 255},
		labelInk:      color.NRGBA{20, 20, 20, 255},
		fill:          0.8,
		widthF:        0.4,
		heightF:       0.48,
		brand:         "Maison Test",
		name:          "Synthetic No. 5",
		concentration: "Eau de Parfum",
	}
	if i%4 == 0 {
		b.capColor = color.NRGBA{242, 242, 240, 255} // white cap
	}
	if b.capColor.A == 0 {
		b.capColor = color.NRGBA{40, 40, 40, 255}
	}
	switch b.shape {
	case shapeSlim:
		b.widthF, b.heightF = 0.26, 0.56
	case shapeRound:
		b.widthF, b.heightF = 0.46, 0.36
	}
	l := b.layout(w, h)
	name := shapeNames[b.shape]
	if i%4 == 0 {
		name += "/white cap"
	}
	return Sample{
		Image:      b.render(w, h, false, pa.fonts),
		Name:       name,
		CenterX:    l.body.cx(),
		BodyWidth:  l.body.w(),
		BodyHeight: l.body.h(),
		Floor:      l.floor,
	}
}
