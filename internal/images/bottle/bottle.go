// Package bottle draws the generated product image of a perfume, the image
// of every perfume without a photo: a bottle derived from the perfume's
// data. The brand decides the silhouette, cap and label style (a brand's
// bottles look alike); the strongest accord colours the liquid; the label
// carries brand, name and concentration. Drawing is deterministic, so every
// replica makes the same pixels and the ETag of the encoded image is
// stable.
//
// A Painter holds the parsed label fonts: Draw draws a perfume on a studio
// backdrop or on transparency, Key names a drawing for caches, and Sample
// draws the varied bottles the tests of background removal are measured
// on.
//
// It imports the catalogue's types, x/image (fonts and the rasterizer) and
// images/pixel; nothing else of the service.
package bottle

import (
	"fmt"
	"image"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Painter draws product images. It is safe for concurrent use.
type Painter struct {
	fonts       *labelFonts
	accordColor func(string) string
}

// NewPainter returns a Painter. accordColor maps an accord name to
// "#RRGGBB"; it colours the liquid of a bottle after the perfume's
// strongest accord. Nil gives every bottle a pale amber. NewPainter fails
// only if the built-in label fonts do not parse.
func NewPainter(accordColor func(accord string) string) (*Painter, error) {
	fonts, err := loadLabelFonts()
	if err != nil {
		return nil, err
	}
	return &Painter{fonts: fonts, accordColor: accordColor}, nil
}

// Draw draws the product image of p on a w×h canvas: the bottle on a
// studio backdrop with a soft shadow, or, with backdrop false, the bottle
// alone on transparency (an exact transparent image).
func (pa *Painter) Draw(p catalog.Perfume, w, h int, backdrop bool) *image.RGBA {
	return bottleFor(p, pa.accordColor).render(w, h, backdrop, pa.fonts)
}

// Key names the drawing of p: it covers everything Draw depends on besides
// the size, so a cache keyed by it draws afresh a perfume whose catalogue
// update changes its bottle.
func (pa *Painter) Key(p catalog.Perfume) string {
	b := bottleFor(p, pa.accordColor)
	return fmt.Sprintf("%d|%s|%s|%s|%v|%v", p.ID, b.brand, b.name, b.concentration, b.liquid, b.fill)
}
