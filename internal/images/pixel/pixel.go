// Package pixel is the arithmetic on pixel values that the image packages
// share: drawing (bottle), background removal (cutout) and encoding
// (encode) all compute channel values as floats and round them back to
// bytes the same way. It imports nothing.
package pixel

// Clamp8 rounds f to the nearest byte value, clamping it to 0–255.
func Clamp8(f float64) uint8 {
	if f <= 0 {
		return 0
	}
	if f >= 255 {
		return 255
	}
	return uint8(f + 0.5)
}
