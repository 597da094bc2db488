package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/racedetect"
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
			db, ref := catalogueStore(b, total)
			fn(b, db, ref)
		})
	}
}

// catalogueStore returns a SQLite store holding the bundled catalogue, topped
// up with generated perfumes to total when it is larger.
func catalogueStore(b testing.TB, total int) (*sqlite.DB, *bundled.Reference) {
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

// storeIndex opens the SQLite store at path (closed when the test ends)
// and builds its index as serve does, with the bundled reference.
func storeIndex(t *testing.T, path string) (*sqlite.DB, *index.Index, *bundled.Reference) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := buildIndex(ctx, db, ref, "")
	if err != nil {
		t.Fatal(err)
	}
	return db, ix, ref
}

// The index streamed from the store (buildIndex) is the one built from the
// whole catalogue in memory: the store decodes every perfume into the same
// memory, and the index must copy all it keeps. The store is the bundled
// catalogue as serve filled a fresh database with it; under -race, whose
// cost here is single-threaded work, the small test catalogue imported
// (the plain pass of .ci/run reads the bundled one).
func TestBuildIndexStreamsTheCatalogue(t *testing.T) {
	var path string
	if racedetect.Enabled {
		path = filepath.Join(t.TempDir(), "small.db")
		runCmd(t, "import", "--db", path, smallCatalogue)
	} else {
		path, _ = freshBundledDB(t)
	}
	db, streamed, ref := storeIndex(t, path)
	ps, err := db.Perfumes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	whole := index.Build(ps, index.Options{AccordColor: ref.Color})
	if streamed.Len() != whole.Len() || streamed.Len() != len(ps) {
		t.Fatalf("streamed %d perfumes, whole %d, stored %d", streamed.Len(), whole.Len(), len(ps))
	}
	for i, p := range ps {
		a, _ := streamed.ByID(p.ID)
		b, _ := whole.ByID(p.ID)
		if !reflect.DeepEqual(a.Perfume(), b.Perfume()) || a.Popularity != b.Popularity {
			t.Fatalf("perfume %d (%s): streamed %+v, whole %+v", i, p.Slug, a.Perfume(), b.Perfume())
		}
	}
	for _, slug := range []string{ps[0].Slug, ps[len(ps)/2].Slug, ps[len(ps)-1].Slug} {
		_, sa, errA := streamed.Similar(slug, 20)
		_, sb, errB := whole.Similar(slug, 20)
		if errA != nil || errB != nil || len(sa) != len(sb) {
			t.Fatalf("similar to %s: %d, %v; %d, %v", slug, len(sa), errA, len(sb), errB)
		}
		for j := range sa {
			if sa[j].Slug() != sb[j].Slug() || sa[j].Score != sb[j].Score {
				t.Fatalf("similar to %s, item %d: %s %.1f, want %s %.1f", slug, j, sa[j].Slug(), sa[j].Score, sb[j].Slug(), sb[j].Score)
			}
		}
	}
}
