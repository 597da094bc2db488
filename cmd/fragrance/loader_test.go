package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// benchStores runs fn as one sub-benchmark per catalogue: "bundled", then
// the bundled catalogue topped up with generated perfumes to each total
// ("100k", …).
func benchStores(b *testing.B, totals []int, fn func(b *testing.B, db *sqlite.DB, ref *bundled.Reference)) {
	for _, total := range append([]int{0}, totals...) {
		name := "bundled"
		if total > 0 {
			name = fmt.Sprintf("%dk", total/1000)
		}
		b.Run(name, func(b *testing.B) {
			db, ref := benchStore(b, total)
			fn(b, db, ref)
		})
	}
}

// benchStore returns a SQLite store holding the bundled catalogue, topped
// up with generated perfumes to total when it is larger.
func benchStore(b *testing.B, total int) (*sqlite.DB, *bundled.Reference) {
	b.Helper()
	ctx := context.Background()
	ref, err := bundled.LoadReference()
	if err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := seedIfEmpty(ctx, db, ref, ""); err != nil {
		b.Fatal(err)
	}
	ps, err := db.Perfumes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if extra := total - len(ps); extra > 0 {
		var buf bytes.Buffer
		if err := importer.Generate(&buf, extra, 1, ps); err != nil {
			b.Fatal(err)
		}
		res, err := importer.New(ref).ReadJSONL(&buf, "generated")
		if err != nil || len(res.Rejected) > 0 {
			b.Fatalf("generated rows: %v %v", err, res.Rejected)
		}
		if _, err := db.ImportPerfumes(ctx, res.Perfumes, nil); err != nil {
			b.Fatal(err)
		}
	}
	return db, ref
}

// BenchmarkStartup measures start-up from the store to a served index:
// loading every perfume and building the in-memory index.
//
//	go test ./cmd/fragrance -run '^$' -bench Startup -benchtime 5x -count 5
func BenchmarkStartup(b *testing.B) {
	benchStores(b, []int{100_000}, func(b *testing.B, db *sqlite.DB, ref *bundled.Reference) {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ix, err := buildIndex(context.Background(), db, ref, "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(ix.Len()), "perfumes")
		}
	})
}

// BenchmarkImport100k measures `fragrance import` of 100,000 new perfumes
// into an empty store: parsing and the one transaction.
func BenchmarkImport100k(b *testing.B) {
	ctx := context.Background()
	ref, err := bundled.LoadReference()
	if err != nil {
		b.Fatal(err)
	}
	sample, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	if err := importer.Generate(&file, 100000, 1, sample.Perfumes); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "imp.db"))
		if err != nil {
			b.Fatal(err)
		}
		res, err := importer.New(ref).ReadJSONL(bytes.NewReader(file.Bytes()), "gen")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.ImportPerfumes(ctx, res.Perfumes, nil); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkCollect measures what a full collection costs with a served
// catalogue live (its perfumes and index): the work every garbage-collection
// cycle repeats under load, on one P as in the load benchmark's layout. The
// catalogue is the bulk of the live heap, and how much of it holds pointers
// decides the figure (bench/RESULTS.md, 200,000 perfumes).
//
//	go test ./cmd/fragrance -run '^$' -bench Collect -benchtime 10x
func BenchmarkCollect(b *testing.B) {
	benchStores(b, []int{200_000}, func(b *testing.B, db *sqlite.DB, ref *bundled.Reference) {
		ix, err := buildIndex(context.Background(), db, ref, "")
		if err != nil {
			b.Fatal(err)
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		runtime.GC()
		b.ResetTimer()
		for b.Loop() {
			runtime.GC()
		}
		b.StopTimer()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heapMB")
		runtime.KeepAlive(ix)
	})
}
