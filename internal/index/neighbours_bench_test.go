package index

import (
	"os"
	"strconv"
	"sync"
	"testing"
)

// BenchmarkNeighbours: what the kept lists cost and save. "rank-chunk"
// ranks the lists of one chunk (reported per perfume: the cost of filling
// the lists is that times the catalogue); "similar" and "dupes" walk every
// 7th perfume of the catalogue, once answered by ranking ("ranked") and
// once from the lists ("kept"): the cold cost of a call either way. The
// catalogue is the bundled one, or FRAGRANCE_BENCH_PERFUMES perfumes made
// from it (scaledCatalogue).
func BenchmarkNeighbours(b *testing.B) {
	_, ref := realCatalogue(b)
	ps, _ := realCatalogue(b)
	if n, _ := strconv.Atoi(os.Getenv("FRAGRANCE_BENCH_PERFUMES")); n > 0 {
		ps = scaledCatalogue(b, n)
	}
	ranked := Build(ps, Options{AccordColor: ref.Color})
	kept := Build(ps, Options{AccordColor: ref.Color})
	b.Run("rank-chunk", func(b *testing.B) {
		c, cpu0 := 0, cpuTime()
		for b.Loop() {
			if _, err := ranked.ComputeNeighbours(c % ranked.NeighbourChunks()); err != nil {
				b.Fatal(err)
			}
			c++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(c*NeighbourChunk), "ns/perfume")
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(c*NeighbourChunk), "cpu-ns/perfume")
	})
	ranked = Build(ps, Options{AccordColor: ref.Color}) // nothing kept
	// kept's lists are ranked when a sub-benchmark first needs them (at
	// 500,000 perfumes that is most of an hour of CPU).
	var fill sync.Once
	filled := func(b *testing.B) {
		fill.Do(func() {
			for c := range kept.NeighbourChunks() {
				if _, err := kept.ComputeNeighbours(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	slugs := make([]string, 0, len(ps)/7+1)
	for i := 0; i < len(ps); i += 7 {
		slugs = append(slugs, ps[i].Slug)
	}
	for _, ix := range []struct {
		name string
		ix   *Index
	}{{"ranked", ranked}, {"kept", kept}} {
		b.Run("similar-"+ix.name, func(b *testing.B) {
			if ix.ix == kept {
				filled(b)
			}
			i := 0
			for b.Loop() {
				ix.ix.Similar(slugs[i%len(slugs)], 10)
				i++
			}
		})
		b.Run("dupes-"+ix.name, func(b *testing.B) {
			if ix.ix == kept {
				filled(b)
			}
			i := 0
			for b.Loop() {
				ix.ix.Dupes(slugs[i%len(slugs)], 20)
				i++
			}
		})
	}
}
