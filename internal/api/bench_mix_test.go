package api_test

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// BenchmarkMixAnswers is BenchmarkColdAnswers on a catalogue and requests
// of the load benchmark's: the perfumes of the SQLite database
// FRAGRANCE_BENCH_DB (say one filled by bench/load/run.sh --catalogue
// 200k) and, per class, the paths of FRAGRANCE_BENCH_MIX/CLASS.seq (files
// bench/load/mix writes), asked in turn through the handler without the
// answer cache or the access layer. It measures in one process, with no
// network and no other server, what the load benchmark's class costs the
// service: the same perfumes and the same requests. Skipped when the
// variables are not set. FRAGRANCE_BENCH_CLASSES picks classes (default
// "search match list"); detail, similar and dupes rank their neighbours
// on demand here, as no lists are loaded.
//
//	FRAGRANCE_BENCH_DB=/path/200k.db FRAGRANCE_BENCH_MIX=/path/mix \
//	  go test ./internal/api -run '^$' -bench MixAnswers -benchtime 20000x
func BenchmarkMixAnswers(b *testing.B) {
	dbPath, mix := os.Getenv("FRAGRANCE_BENCH_DB"), os.Getenv("FRAGRANCE_BENCH_MIX")
	if dbPath == "" || mix == "" {
		b.Skip("FRAGRANCE_BENCH_DB and FRAGRANCE_BENCH_MIX are not set")
	}
	classes := strings.Fields(os.Getenv("FRAGRANCE_BENCH_CLASSES"))
	if len(classes) == 0 {
		classes = []string{"search", "match", "list"}
	}
	ix := servetest.StoredCatalogue(b, dbPath)
	h := newServer(b, func(c *newConfig) { c.Catalogue, c.AnswerCacheMB = index.NewHolder(ix), -1 })
	for _, class := range classes {
		paths := linesOf(b, filepath.Join(mix, class+".seq"))
		b.Run(class, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, i := servetest.CPUTime(), 0
			for b.Loop() {
				if rec := do(b, h, "GET", paths[i%len(paths)]); rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", paths[i%len(paths)], rec.Code, rec.Body)
				}
				i++
			}
			// CPU time, not wall time, on a machine shared with other jobs.
			b.ReportMetric(float64((servetest.CPUTime()-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
		})
	}
}

// linesOf reads a file's lines; it fails the benchmark on none.
func linesOf(b *testing.B, path string) []string {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if len(out) == 0 {
		b.Fatalf("%s: no paths", path)
	}
	return out
}
