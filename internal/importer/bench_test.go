package importer

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
)

// BenchmarkReadBundled reads the embedded catalogue (37,490 rows, gzipped),
// with one parse worker and with the default number.
func BenchmarkReadBundled(b *testing.B) {
	ref, err := bundled.LoadReference()
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 0} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			im := &Importer{tiers: ref, workers: workers}
			rows := 0
			for b.Loop() {
				res, err := im.ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
				if err != nil {
					b.Fatal(err)
				}
				rows = len(res.Perfumes)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkReadGenerated100k reads a generated 100,000-row plain file.
func BenchmarkReadGenerated100k(b *testing.B) {
	data := generated(b, 100_000)
	b.SetBytes(int64(len(data)))
	im := New(nil)
	for b.Loop() {
		res, err := im.ReadJSONL(bytes.NewReader(data), "generated.jsonl")
		if err != nil || len(res.Rejected) > 0 {
			b.Fatal(err, res.Rejected)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGenerate100k writes 100,000 synthetic rows.
func BenchmarkGenerate100k(b *testing.B) {
	sample := readBundled(b).Perfumes
	for b.Loop() {
		if err := Generate(io.Discard, 100_000, 1, sample); err != nil {
			b.Fatal(err)
		}
	}
}

func generated(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := Generate(&buf, n, 1, readBundled(b).Perfumes); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
