package bottle

import (
	"fmt"
	"image"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// labelFonts are the parsed typefaces of bottle labels (the Go fonts,
// BSD-licensed and built into x/image). A parsed font is safe for
// concurrent use; faces are not, so each render makes its own.
type labelFonts struct {
	regular, medium *opentype.Font
}

func loadLabelFonts() (*labelFonts, error) {
	reg, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("parse Go Regular: %w", err)
	}
	med, err := opentype.Parse(gomedium.TTF)
	if err != nil {
		return nil, fmt.Errorf("parse Go Medium: %w", err)
	}
	return &labelFonts{regular: reg, medium: med}, nil
}

// face returns a face of f at px pixels.
func face(f *opentype.Font, px float64) font.Face {
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingNone})
	if err != nil { // NewFace cannot fail for a parsed font; draw no text if it ever does
		return nil
	}
	return fc
}

// labelRect is where the label sits on the body.
func (b bottle) labelRect(l layout) rectF {
	w := 0.72
	switch b.shape {
	case shapeRound:
		w = 0.62
	case shapeFlask, shapeFan:
		w = 0.66
	case shapeSlim:
		w = 0.86
	}
	lw, lh := l.body.w()*w, math.Min(l.body.h()*0.36, l.body.w()*0.62)
	cy := l.body.Y0 + l.body.h()*0.56
	return rectF{l.body.cx() - lw/2, cy - lh/2, l.body.cx() + lw/2, cy + lh/2}
}

// drawLabel draws the label and its text: brand, name (wrapped onto two
// lines, shrunk, or cut short as needed) and concentration.
func (b bottle) drawLabel(dst *image.RGBA, l layout, fonts *labelFonts) {
	r := b.labelRect(l)
	fill(dst, roundRect(r, r.h()*0.08), image.NewUniform(scale(b.labelBg, 0.8)))
	in := r.inset(math.Max(1, l.rim*0.7))
	fill(dst, roundRect(in, in.h()*0.07), image.NewUniform(b.labelBg))
	if fonts == nil {
		return
	}
	ink := image.NewUniform(b.labelInk)
	maxW := in.w() * 0.88
	var lines []textLine
	brandPx := in.h() * 0.12
	if fb := face(fonts.medium, brandPx); fb != nil {
		lines = append(lines, textLine{fit(fb, strings.ToUpper(b.brand), maxW), fb, brandPx})
	}
	lines = append(lines, b.textLines(fonts, in.h(), maxW)...)
	if c := strings.TrimSpace(b.concentration); c != "" {
		px := in.h() * 0.095
		if fc := face(fonts.regular, px); fc != nil {
			lines = append(lines, textLine{fit(fc, strings.ToUpper(c), maxW), fc, px})
		}
	}
	total := 0.0
	for _, ln := range lines {
		total += ln.px * 1.25
	}
	y := in.Y0 + (in.h()-total)/2
	for _, ln := range lines {
		y += ln.px * 1.25
		adv := font.MeasureString(ln.f, ln.text)
		x := in.cx() - float64(adv)/128
		d := font.Drawer{Dst: dst, Src: ink, Face: ln.f, Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6((y - ln.px*0.25) * 64)}}
		d.DrawString(ln.text)
	}
}

// textLine is one line of label text in its face and pixel size.
type textLine struct {
	text string
	f    font.Face
	px   float64
}

// textLines sets the name as large as fits: one line, else two smaller
// lines split at a space, else one line cut short.
func (b bottle) textLines(fonts *labelFonts, h, maxW float64) []textLine {
	name := strings.TrimSpace(b.name)
	if name == "" {
		return nil
	}
	for _, px := range []float64{h * 0.22, h * 0.18, h * 0.15} {
		f := face(fonts.regular, px)
		if f == nil {
			return nil
		}
		if width(f, name) <= maxW {
			return []textLine{{name, f, px}}
		}
	}
	a, c, ok := splitHalf(name)
	for _, px := range []float64{h * 0.16, h * 0.13, h * 0.11} {
		f := face(fonts.regular, px)
		if f == nil {
			return nil
		}
		if ok && width(f, a) <= maxW && width(f, c) <= maxW {
			return []textLine{{a, f, px}, {c, f, px}}
		}
		if px == h*0.11 {
			if ok && width(f, a) <= maxW { // keep the first words whole
				return []textLine{{a, f, px}, {fit(f, c, maxW), f, px}}
			}
			return []textLine{{fit(f, name, maxW), f, px}}
		}
	}
	return nil
}

// splitHalf splits s at the space nearest its middle.
func splitHalf(s string) (string, string, bool) {
	best := -1
	for i, r := range s {
		if r == ' ' && (best < 0 || abs(i-len(s)/2) < abs(best-len(s)/2)) {
			best = i
		}
	}
	if best < 0 {
		return "", "", false
	}
	return s[:best], s[best+1:], true
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// width is the advance of s in pixels.
func width(f font.Face, s string) float64 { return float64(font.MeasureString(f, s)) / 64 }

// fit cuts s short with an ellipsis until it is at most maxW wide.
func fit(f font.Face, s string, maxW float64) string {
	if width(f, s) <= maxW {
		return s
	}
	rs := []rune(s)
	for n := len(rs) - 1; n > 0; n-- {
		t := strings.TrimSpace(string(rs[:n])) + "…"
		if width(f, t) <= maxW {
			return t
		}
	}
	return ""
}
