package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// benchStore returns a SQLite store holding the bundled catalogue plus
// extra generated perfumes.
func benchStore(b *testing.B, extra int) (*sqlite.DB, *bundled.Reference) {
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
	if extra > 0 {
		ps, err := db.Perfumes(ctx)
		if err != nil {
			b.Fatal(err)
		}
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
	for _, tc := range []struct {
		name  string
		extra int
	}{{"bundled", 0}, {"100k", 100000 - 37490}} {
		b.Run(tc.name, func(b *testing.B) {
			db, ref := benchStore(b, tc.extra)
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
	for _, tc := range []struct {
		name  string
		extra int
	}{{"bundled", 0}, {"200k", 200000 - 37490}} {
		b.Run(tc.name, func(b *testing.B) {
			db, ref := benchStore(b, tc.extra)
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
}
