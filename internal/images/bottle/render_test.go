package bottle

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/encode"
)

func TestGeneratedImagesAreDeterministicAndInRange(t *testing.T) {
	fonts, err := loadLabelFonts()
	if err != nil {
		t.Fatal(err)
	}
	shapes := make(map[bodyShape]bool)
	for i, brand := range []string{"Dior", "Chanel", "Tom Ford", "Guerlain", "Lattafa", "Creed", "Hermès"} {
		p := catalog.Perfume{ID: int64(100 + i), Brand: brand, Name: fmt.Sprintf("A Rather Long Perfume Name Number %d", i),
			Concentration: "Eau de Parfum", Accords: []catalog.AccordStrength{{Name: "rose", Strength: 60}, {Name: "woody", Strength: 100}}}
		b := bottleFor(p, benchColor)
		shapes[b.shape] = true
		if b.liquid != (color.NRGBA{0x77, 0x44, 0x14, 255}) {
			t.Errorf("%s: liquid %v, want the strongest accord's colour (woody)", brand, b.liquid)
		}
		img := b.render(encode.PhotoWidth, encode.PhotoHeight, true, fonts)
		if !bytes.Equal(img.Pix, bottleFor(p, benchColor).render(encode.PhotoWidth, encode.PhotoHeight, true, fonts).Pix) {
			t.Errorf("%s: two renders differ", brand)
		}
		first, err := encode.JPEG(img, encode.PhotoMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) < 20_000 || len(first) > encode.PhotoMaxBytes {
			t.Errorf("%s: generated JPEG %d bytes, want 20–30 KB", brand, len(first))
		}
	}
	if len(shapes) < 4 {
		t.Errorf("7 brands gave only %d bottle shapes", len(shapes))
	}
}

func TestBottleFollowsBrand(t *testing.T) {
	a := bottleFor(catalog.Perfume{ID: 1, Brand: "Dior", Name: "Sauvage"}, nil)
	b := bottleFor(catalog.Perfume{ID: 2, Brand: "dior ", Name: "Fahrenheit"}, nil)
	if a.shape != b.shape || a.capShape != b.capShape || a.capColor != b.capColor {
		t.Error("two perfumes of one brand got different bottles")
	}
	if a.liquid != defaultLiquid {
		t.Errorf("no accords: liquid %v, want the default", a.liquid)
	}
}

func TestTransparentRenderMatchesBackdropRender(t *testing.T) {
	// The generated transparent image is exact: opaque where the bottle
	// is, clear elsewhere, and the same bottle as the JPEG.
	fonts, _ := loadLabelFonts()
	b := bottleFor(catalog.Perfume{ID: 7, Brand: "Guerlain", Name: "Shalimar"}, nil)
	clear := b.render(encode.NobgWidth, encode.NobgHeight, false, fonts)
	if a := clear.RGBAAt(2, 2).A; a != 0 {
		t.Errorf("corner alpha %d, want 0", a)
	}
	l := b.layout(encode.NobgWidth, encode.NobgHeight)
	mid := image.Pt(int(l.body.cx()), int(l.body.Y1-l.body.h()*0.1))
	if a := clear.RGBAAt(mid.X, mid.Y).A; a != 255 {
		t.Errorf("body alpha %d, want 255", a)
	}
}

func TestParseHex(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
		c  color.NRGBA
	}{
		{"#BC4D10", true, color.NRGBA{0xbc, 0x4d, 0x10, 255}},
		{"#bc4d10", true, color.NRGBA{0xbc, 0x4d, 0x10, 255}},
		{"BC4D10", false, color.NRGBA{}},
		{"#BC4D1", false, color.NRGBA{}},
		{"#GG0000", false, color.NRGBA{}},
	} {
		got, ok := parseHex(c.in)
		if ok != c.ok || got != c.c {
			t.Errorf("parseHex(%q) = %v, %v", c.in, got, ok)
		}
	}
}
