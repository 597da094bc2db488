package bottle

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/encode"
)

// Benchmarks of the generated images, each reporting images per second
// and bytes per output image:
//
//	go test ./internal/images/bottle -run '^$' -bench . -benchtime 20x

// BenchmarkGeneratedPhoto draws and encodes the product image of a perfume
// without a photo (a cache miss of the host).
func BenchmarkGeneratedPhoto(b *testing.B) {
	benchGenerated(b, func(bt bottle, fonts *labelFonts) ([]byte, error) {
		return encode.JPEG(bt.render(encode.PhotoWidth, encode.PhotoHeight, true, fonts), encode.PhotoMaxBytes)
	})
}

// BenchmarkGeneratedTransparent is the job of a perfume without a photo:
// its bottle drawn straight onto transparency.
func BenchmarkGeneratedTransparent(b *testing.B) {
	benchGenerated(b, func(bt bottle, fonts *labelFonts) ([]byte, error) {
		return encode.Nobg(encode.ToNRGBA(bt.render(encode.NobgWidth, encode.NobgHeight, false, fonts)))
	})
}

// benchGenerated times enc on the bottles of varied perfumes.
func benchGenerated(b *testing.B, enc func(bottle, *labelFonts) ([]byte, error)) {
	fonts, err := loadLabelFonts()
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data, err := enc(bottleFor(benchPerfume(i), benchColor), fonts)
		if err != nil {
			b.Fatal(err)
		}
		total += len(data)
	}
	report(b, total)
}

func report(b *testing.B, total int) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
	b.ReportMetric(float64(total)/float64(b.N), "bytes/image")
}

var benchBrands = []string{"Dior", "Chanel", "Tom Ford", "Guerlain", "Zara", "Lattafa", "Creed", "Hermès"}

func benchPerfume(i int) catalog.Perfume {
	return catalog.Perfume{ID: int64(i), Brand: benchBrands[i%len(benchBrands)], Name: "Bench No. " + string(rune('A'+i%26)),
		Concentration: "Eau de Parfum", Accords: []catalog.AccordStrength{{Name: []string{"woody", "citrus", "rose"}[i%3], Strength: 100}}}
}

func benchColor(a string) string {
	return map[string]string{"woody": "#774414", "citrus": "#F9FF52", "rose": "#FE0C51"}[a]
}
