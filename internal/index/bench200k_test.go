package index

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// scaledCatalogue makes n perfumes out of the real catalogue: copies beyond
// the first get new ids and slugs and a made-up extra name word, so the
// vocabulary grows as a larger real catalogue's would.
func scaledCatalogue(tb testing.TB, n int) []catalog.Perfume {
	var out []catalog.Perfume
	for copyNo := 0; len(out) < n; copyNo++ {
		ps, _ := realCatalogue(tb)
		for i := range ps {
			if len(out) == n {
				break
			}
			p := ps[i]
			if copyNo > 0 {
				word := madeUpWord(copyNo*len(ps) + i)
				p.ID += int64(copyNo) * 1_000_000
				p.Name += " " + word
				p.Slug = fmt.Sprintf("%s-%s-%d", p.Slug, word, copyNo)
			}
			out = append(out, p)
		}
	}
	return out
}

func madeUpWord(i int) string {
	const letters = "bcdfghklmnprstvz"
	const vowels = "aeiou"
	var b []byte
	for i > 0 || len(b) < 4 {
		b = append(b, letters[i%len(letters)], vowels[(i/len(letters))%len(vowels)])
		i /= len(letters) * len(vowels)
	}
	return string(b)
}

// BenchmarkBuild200k builds a 200,000-perfume catalogue and reports the
// heap the index holds afterwards, the perfume data it owns included.
func BenchmarkBuild200k(b *testing.B) {
	_, ref := realCatalogue(b)
	var ix *Index
	var base uint64
	for b.Loop() {
		b.StopTimer()
		ix = nil
		base = heapInuse()
		ps := scaledCatalogue(b, 200_000)
		runtime.GC() // not the scaffolding's garbage on the clock
		b.StartTimer()
		ix = Build(ps, Options{AccordColor: ref.Color})
	}
	b.StopTimer()
	b.ReportMetric(float64(heapInuse()-base)/(1<<20), "indexMB")
	runtime.KeepAlive(ix)
}

// heapInuse is the live heap after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkQueries200k times the query kinds on a 200,000-perfume catalogue.
func BenchmarkQueries200k(b *testing.B) {
	_, ref := realCatalogue(b)
	ix := Build(scaledCatalogue(b, 200_000), Options{AccordColor: ref.Color})
	b.Run("search-exact", func(b *testing.B) {
		for b.Loop() {
			ix.Perfumes(ListQuery{Q: "dior sauvage", Page: 1, Limit: 20})
		}
	})
	b.Run("search-typo", func(b *testing.B) {
		for b.Loop() {
			ix.Perfumes(ListQuery{Q: "baccarrat rougge", Page: 1, Limit: 20})
		}
	})
	b.Run("similar", func(b *testing.B) {
		for b.Loop() {
			ix.Similar("dior-sauvage", 10)
		}
	})
	b.Run("dupes", func(b *testing.B) {
		for b.Loop() {
			ix.Dupes("creed-aventus", 20)
		}
	})
	b.Run("match", func(b *testing.B) {
		for b.Loop() {
			ix.Match(MatchQuery{Accords: []AccordWant{{"woody", 100}, {"vanilla", 40}}, Page: 1, Limit: 20})
		}
	})
}

// BenchmarkCold200k is BenchmarkCold on a 200,000-perfume catalogue.
func BenchmarkCold200k(b *testing.B) {
	benchCold(b, scaledIndex(b, 200_000))
}

// BenchmarkColdSized is BenchmarkCold on a catalogue of
// FRAGRANCE_BENCH_PERFUMES perfumes (say 500000), for the projections
// beyond 200k; skipped when the variable is not set.
func BenchmarkColdSized(b *testing.B) {
	env := os.Getenv("FRAGRANCE_BENCH_PERFUMES")
	if env == "" {
		b.Skip("FRAGRANCE_BENCH_PERFUMES is not set")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1 {
		b.Fatalf("FRAGRANCE_BENCH_PERFUMES=%q: want a number of perfumes", env)
	}
	benchCold(b, scaledIndex(b, n))
}

// The last scaled index built, kept so that -count runs and the cold
// benchmarks' sizes build it once (a 500,000-perfume build takes seconds).
var (
	scaledMu sync.Mutex
	scaled   *Index
)

// scaledIndex is the index of scaledCatalogue(n); skipped in -short.
func scaledIndex(b *testing.B, n int) *Index {
	b.Helper()
	if testing.Short() {
		b.Skip("a large catalogue takes seconds to build")
	}
	scaledMu.Lock()
	defer scaledMu.Unlock()
	if scaled == nil || scaled.Len() != n {
		scaled = nil // the old one's memory is free for the build
		_, ref := realCatalogue(b)
		scaled = Build(scaledCatalogue(b, n), Options{AccordColor: ref.Color})
	}
	return scaled
}
