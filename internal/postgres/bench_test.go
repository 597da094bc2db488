package postgres_test

import (
	"context"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
)

// bundledCatalogue reads the catalogue shipped in the binary.
func bundledCatalogue(b *testing.B) []catalog.Perfume {
	b.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		b.Fatal(err)
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		b.Fatal(err)
	}
	return res.Perfumes
}

// BenchmarkImportBundled times the first import of the bundled catalogue
// into an empty database (what `fragrance import` or a first `serve` does).
func BenchmarkImportBundled(b *testing.B) {
	ps := bundledCatalogue(b)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		db := open(b)
		in := append([]catalog.Perfume(nil), ps...)
		b.StartTimer()
		res, err := db.ImportPerfumes(ctx, in, nil)
		if err != nil || res.Added != len(ps) {
			b.Fatalf("import = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(len(ps)), "perfumes")
}

// BenchmarkReimportBundled times importing the same catalogue again: every
// row compared, none written.
func BenchmarkReimportBundled(b *testing.B) {
	ps := bundledCatalogue(b)
	ctx := context.Background()
	db := open(b)
	if _, err := db.ImportPerfumes(ctx, append([]catalog.Perfume(nil), ps...), nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := db.ImportPerfumes(ctx, append([]catalog.Perfume(nil), ps...), nil)
		if err != nil || res.Unchanged != len(ps) {
			b.Fatalf("reimport = %+v, %v", res, err)
		}
	}
}

// BenchmarkPerfumesBundled times reading the whole catalogue back, as every
// replica does at start and after each import.
func BenchmarkPerfumesBundled(b *testing.B) {
	ps := bundledCatalogue(b)
	ctx := context.Background()
	db := open(b)
	if _, err := db.ImportPerfumes(ctx, ps, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := db.Perfumes(ctx)
		if err != nil || len(got) != len(ps) {
			b.Fatalf("Perfumes = %d, %v", len(got), err)
		}
	}
}
