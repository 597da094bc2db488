package images

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/images/cutout/cutouttest"
	"github.com/fragrance-data/fragrance/internal/images/encode"
)

// A benchmark of the image work of a job, reporting images per second and
// bytes per output image (bottle has those of generated images):
//
//	go test ./internal/images -run '^$' -bench . -benchtime 20x

// BenchmarkTransparentFromPhoto is one background-removal job on an
// imported photo: decode the kept source, remove the background, scale,
// quantise and encode the WebP.
func BenchmarkTransparentFromPhoto(b *testing.B) {
	painter, err := bottle.NewPainter(nil)
	if err != nil {
		b.Fatal(err)
	}
	var sources [][]byte
	for i := range 8 {
		sc := cutouttest.MakeScene(b, i, encode.SourceWidth, encode.SourceHeight, painter)
		src, err := encode.JPEGAt(sc.Image, encode.SourceQuality)
		if err != nil {
			b.Fatal(err)
		}
		sources = append(sources, src)
	}
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := transparentFromPhoto(sources[i%len(sources)])
		if err != nil {
			b.Fatal(err)
		}
		total += len(out)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
	b.ReportMetric(float64(total)/float64(b.N), "bytes/image")
}
