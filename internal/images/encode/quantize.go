package encode

import (
	"image"
	"image/color"
	"slices"

	"github.com/fragrance-data/fragrance/internal/images/pixel"
)

// Colour quantisation for the transparent WebP. The only pure-Go WebP
// encoder writes lossless VP8L; a product shot stored losslessly is far over
// the 15–50 KB the seed promises, but with at most 256 colours the encoder
// switches to its palette mode and the size falls into range. Median cut
// over RGBA keeps the soft alpha of the outline; no dithering, because
// dither noise costs more bytes than the banding it hides.

// quantKey packs a colour reduced to 5 bits per colour channel and 4 bits
// of alpha: the histogram resolution of the median cut.
func quantKey(c color.NRGBA) uint32 {
	if c.A == 0 {
		return 0
	}
	return uint32(c.R>>3)<<14 | uint32(c.G>>3)<<9 | uint32(c.B>>3)<<4 | uint32(c.A>>4)
}

// bucket is one histogram entry: the sum of the colours that fell in it.
type bucket struct {
	sum   [4]float64
	count float64
}

func (b bucket) mean() [4]float64 {
	return [4]float64{b.sum[0] / b.count, b.sum[1] / b.count, b.sum[2] / b.count, b.sum[3] / b.count}
}

// quantize returns img with at most maxColors colours, fully transparent
// pixels sharing one entry. The result is deterministic.
func quantize(img *image.NRGBA, maxColors int) *image.Paletted {
	b := img.Bounds()
	hist := make(map[uint32]*bucket)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			if c.A == 0 {
				continue
			}
			k := quantKey(c)
			e := hist[k]
			if e == nil {
				e = &bucket{}
				hist[k] = e
			}
			e.sum[0] += float64(c.R)
			e.sum[1] += float64(c.G)
			e.sum[2] += float64(c.B)
			e.sum[3] += float64(c.A)
			e.count++
		}
	}
	keys := make([]uint32, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys) // map order is random; the palette must not be
	items := make([]bucket, len(keys))
	for i, k := range keys {
		items[i] = *hist[k]
	}
	pal := color.Palette{color.NRGBA{}}
	for _, box := range medianCut(items, maxColors-1) {
		pal = append(pal, box)
	}
	slices.SortStableFunc(pal[1:], func(a, b color.Color) int {
		return int(luma(a.(color.NRGBA))) - int(luma(b.(color.NRGBA)))
	})
	return mapToPalette(img, pal)
}

// medianCut splits the histogram into at most n boxes, always cutting the
// box with the widest weighted spread at its weighted median, and returns
// each box's mean colour.
func medianCut(items []bucket, n int) []color.NRGBA {
	if len(items) == 0 {
		return nil
	}
	boxes := [][]bucket{items}
	for len(boxes) < n {
		best, bestScore, bestAxis := -1, 0.0, 0
		for i, bx := range boxes {
			if len(bx) < 2 {
				continue
			}
			axis, spread := widestAxis(bx)
			if score := spread * boxWeight(bx); score > bestScore {
				best, bestScore, bestAxis = i, score, axis
			}
		}
		if best < 0 {
			break
		}
		lo, hi := splitBox(boxes[best], bestAxis)
		boxes[best] = lo
		boxes = append(boxes, hi)
	}
	out := make([]color.NRGBA, len(boxes))
	for i, bx := range boxes {
		var s bucket
		for _, it := range bx {
			for c := range 4 {
				s.sum[c] += it.sum[c]
			}
			s.count += it.count
		}
		m := s.mean()
		out[i] = color.NRGBA{pixel.Clamp8(m[0]), pixel.Clamp8(m[1]), pixel.Clamp8(m[2]), max(1, pixel.Clamp8(m[3]))}
	}
	return out
}

// widestAxis returns the channel along which the box's colours spread
// most, and that spread. Alpha counts double: edge softness shows.
func widestAxis(bx []bucket) (int, float64) {
	axis, spread := 0, -1.0
	for c := range 4 {
		lo, hi := 1e9, -1e9
		for _, it := range bx {
			v := it.sum[c] / it.count
			lo, hi = min(lo, v), max(hi, v)
		}
		s := hi - lo
		if c == 3 {
			s *= 2
		}
		if s > spread {
			axis, spread = c, s
		}
	}
	return axis, spread
}

func boxWeight(bx []bucket) float64 {
	w := 0.0
	for _, it := range bx {
		w += it.count
	}
	return w
}

// splitBox sorts the box along axis and cuts it where half its pixels lie
// on each side.
func splitBox(bx []bucket, axis int) (lo, hi []bucket) {
	slices.SortStableFunc(bx, func(a, b bucket) int {
		va, vb := a.sum[axis]/a.count, b.sum[axis]/b.count
		switch {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	half, acc := boxWeight(bx)/2, 0.0
	cut := 1
	for i, it := range bx[:len(bx)-1] {
		acc += it.count
		cut = i + 1
		if acc >= half {
			break
		}
	}
	return bx[:cut:cut], bx[cut:]
}

// mapToPalette maps every pixel to its nearest palette entry, caching the
// answer per histogram cell.
func mapToPalette(img *image.NRGBA, pal color.Palette) *image.Paletted {
	b := img.Bounds()
	out := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), pal)
	cache := make(map[uint32]uint8)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			if c.A == 0 {
				continue // index 0 is transparent
			}
			k := quantKey(c)
			idx, ok := cache[k]
			if !ok {
				idx = nearest(pal, c)
				cache[k] = idx
			}
			out.Pix[(y-b.Min.Y)*out.Stride+(x-b.Min.X)] = idx
		}
	}
	return out
}

// nearest returns the index of the palette colour closest to c, comparing
// premultiplied values so that faint edge pixels match faint entries.
func nearest(pal color.Palette, c color.NRGBA) uint8 {
	best, bestD := 0, int64(1)<<62
	pm := func(v, a uint8) int64 { return int64(v) * int64(a) / 255 }
	for i, p := range pal {
		q := p.(color.NRGBA)
		dr := pm(c.R, c.A) - pm(q.R, q.A)
		dg := pm(c.G, c.A) - pm(q.G, q.A)
		db := pm(c.B, c.A) - pm(q.B, q.A)
		da := int64(c.A) - int64(q.A)
		if d := dr*dr + dg*dg + db*db + 2*da*da; d < bestD {
			best, bestD = i, d
		}
	}
	return uint8(best)
}

// luma is the perceived brightness of c, 0–255.
func luma(c color.NRGBA) float64 {
	return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B)
}
