package cutout

import (
	"image"
	"testing"
)

// FuzzRemoveBackground runs background removal on small arbitrary images.
func FuzzRemoveBackground(f *testing.F) {
	f.Add(uint8(16), uint8(20), []byte{255, 255, 255, 0, 0, 0})
	f.Add(uint8(9), uint8(9), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, w, h uint8, pix []byte) {
		if w == 0 || h == 0 || len(pix) == 0 {
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, int(w%64)+1, int(h%64)+1))
		for i := range img.Pix {
			img.Pix[i] = pix[i%len(pix)]
		}
		out, err := RemoveBackground(img)
		if err != nil {
			return
		}
		if out.Bounds() != img.Bounds() {
			t.Fatalf("output bounds %v, want %v", out.Bounds(), img.Bounds())
		}
	})
}
