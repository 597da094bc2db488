package encode

import (
	"bytes"
	"image"
	"image/color"
	"testing"
)

func TestQuantize(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			if x < 8 {
				continue // transparent column
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 4), uint8(y * 4), uint8(x * y), uint8(128 + y*2)})
		}
	}
	q := quantize(img, 64)
	if len(q.Palette) > 64 {
		t.Fatalf("palette of %d colours, want at most 64", len(q.Palette))
	}
	if _, _, _, a := q.At(3, 30).RGBA(); a != 0 {
		t.Errorf("transparent pixel became alpha %d", a)
	}
	var worst float64
	for y := 0; y < 64; y++ {
		for x := 8; x < 64; x++ {
			a, b := img.NRGBAAt(x, y), q.At(x, y).(color.NRGBA)
			d := abs(int(a.R)-int(b.R)) + abs(int(a.G)-int(b.G)) + abs(int(a.B)-int(b.B)) + abs(int(a.A)-int(b.A))
			worst = max(worst, float64(d))
		}
	}
	if worst > 120 {
		t.Errorf("worst quantisation error %v, too coarse", worst)
	}
	if !bytes.Equal(quantize(img, 64).Pix, q.Pix) {
		t.Error("quantize is not deterministic")
	}
}

// abs is the absolute value of i.
func abs(i int) int { return max(i, -i) }
