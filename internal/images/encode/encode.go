// Package encode makes the bytes the service stores and serves from
// images: it fixes the sizes of the kept source, the served JPEG and the
// served transparent WebP, encodes a JPEG at the best quality within a byte
// budget and a transparent image as lossless WebP with a quantised palette
// (stepping down colours and size until it fits its budget), and fits and
// scales images onto those canvases. Encoding is deterministic, so every
// replica makes the same bytes from the same pixels.
//
// It imports the standard library, x/image, the WebP encoder and
// images/pixel; nothing else of the service.
package encode

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/HugoSmits86/nativewebp"
	xdraw "golang.org/x/image/draw"
)

// The sizes of the served and kept images. All share the 3:4 portrait
// shape of a bottle shot, so the JPEG and the transparent WebP line up.
const (
	// PhotoWidth × PhotoHeight is the served JPEG.
	PhotoWidth, PhotoHeight = 450, 600
	// SourceWidth × SourceHeight is the kept import, the input of background
	// removal (a larger source gives cleaner edges once scaled down).
	SourceWidth, SourceHeight = 600, 800
	// NobgWidth × NobgHeight is the served transparent WebP, the JPEG's
	// size so the two line up. Lossless WebP with a 256-colour palette lands
	// in the seed's 15–50 KB at this size for a photo.
	NobgWidth, NobgHeight = 450, 600
)

// Byte budgets of the encoders.
const (
	// PhotoMaxBytes is the most a served JPEG may weigh (the seed: about
	// 20–30 KB); JPEG takes the best quality under it.
	PhotoMaxBytes = 30 * 1000
	// SourceQuality is the JPEG quality of the kept import, close to the
	// original.
	SourceQuality = 92
	// minPhotoQuality is the floor of the quality search: below it JPEG
	// blocks show, and a busy photo may rather weigh a little more.
	minPhotoQuality = 40
	maxPhotoQuality = 100
	// nobgMaxBytes is the most a transparent WebP should weigh; a busy
	// photo gets fewer colours, then fewer pixels, until it fits.
	nobgMaxBytes = 50 * 1000
)

// nobgSteps are the tries of Nobg, best first.
var nobgSteps = []struct{ w, h, colors int }{
	{NobgWidth, NobgHeight, 256},
	{NobgWidth, NobgHeight, 128},
	{375, 500, 128},
	{300, 400, 64},
}

// JPEG encodes img at the highest quality from 40 to 100 (minPhotoQuality
// to maxPhotoQuality) whose output fits maxBytes, or at 40 when none does,
// by binary search.
func JPEG(img image.Image, maxBytes int) ([]byte, error) {
	lo, hi := minPhotoQuality, maxPhotoQuality
	var best []byte
	for lo <= hi {
		q := (lo + hi) / 2
		data, err := JPEGAt(img, q)
		if err != nil {
			return nil, err
		}
		if len(data) <= maxBytes {
			best, lo = data, q+1
		} else {
			hi = q - 1
		}
	}
	if best == nil {
		return JPEGAt(img, minPhotoQuality)
	}
	return best, nil
}

// JPEGAt encodes img as a JPEG of quality q (1–100).
func JPEGAt(img image.Image, q int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// Nobg makes the served transparent image: it scales img to NobgWidth ×
// NobgHeight and encodes it as lossless WebP with a palette, stepping down
// colours, then size, while the output is over 50 KB.
func Nobg(img *image.NRGBA) ([]byte, error) {
	var data []byte
	for _, st := range nobgSteps {
		small := img
		if b := img.Bounds(); b.Dx() != st.w || b.Dy() != st.h {
			small = scaleNRGBA(img, st.w, st.h)
		}
		var err error
		if data, err = encodeWebP(small, st.colors); err != nil {
			return nil, err
		}
		if len(data) <= nobgMaxBytes {
			break
		}
	}
	return data, nil
}

// encodeWebP encodes a transparent image as lossless WebP with a palette
// of at most colors entries.
func encodeWebP(img *image.NRGBA, colors int) ([]byte, error) {
	var buf bytes.Buffer
	if err := nativewebp.Encode(&buf, quantize(img, colors), nil); err != nil {
		return nil, fmt.Errorf("encode webp: %w", err)
	}
	return buf.Bytes(), nil
}

// FitCanvas scales img to fit inside w×h, keeping its proportions, and
// centres it on a canvas of colour pad. Imports of any shape thus become
// one size without cutting off the bottle.
func FitCanvas(img image.Image, w, h int, pad color.Color) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.Draw(dst, dst.Bounds(), image.NewUniform(pad), image.Point{}, xdraw.Src)
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw == 0 || sh == 0 {
		return dst
	}
	tw, th := w, sh*w/sw
	if th > h {
		tw, th = sw*h/sh, h
	}
	tw, th = max(tw, 1), max(th, 1)
	r := image.Rect((w-tw)/2, (h-th)/2, (w-tw)/2+tw, (h-th)/2+th)
	xdraw.CatmullRom.Scale(dst, r, img, b, xdraw.Over, nil)
	return dst
}

// scaleNRGBA resizes a transparent image with alpha-correct (premultiplied)
// filtering, so edges do not pick up the colour of transparent pixels.
func scaleNRGBA(img *image.NRGBA, w, h int) *image.NRGBA {
	pm := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(pm, pm.Bounds(), img, img.Bounds(), xdraw.Src, nil)
	return ToNRGBA(pm)
}

// ToNRGBA converts a premultiplied image to straight alpha, the form Nobg
// takes.
func ToNRGBA(src *image.RGBA) *image.NRGBA {
	out := image.NewNRGBA(src.Bounds())
	for i := 0; i < len(src.Pix); i += 4 {
		a := src.Pix[i+3]
		if a == 0 {
			continue
		}
		un := func(v uint8) uint8 { return uint8(min(255, (int(v)*255+int(a)/2)/int(a))) }
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = un(src.Pix[i]), un(src.Pix[i+1]), un(src.Pix[i+2]), a
	}
	return out
}
