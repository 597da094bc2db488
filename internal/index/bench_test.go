package index

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

func BenchmarkBuild(b *testing.B) {
	ps, ref := realCatalogue(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		cp, _ := realCatalogue(b)
		b.StartTimer()
		Build(cp, Options{AccordColor: ref.Color})
	}
	_ = ps
}

func BenchmarkPerfumes(b *testing.B) {
	ix := realIndex(b)
	for _, q := range []struct{ name, q string }{
		{"exact", "dior sauvage"},
		{"prefix", "tobacco van"},
		{"typo", "sauvag dior"},
		{"typo2", "baccarrat rougge"},
		{"joined", "lightblue"},
		{"alias", "ysl libre"},
		{"edition", "bleu de chanel parfum"},
		{"number", "one million"},
		{"brand", "chanel"},
		{"short", "sa"},
		{"long", "eau de parfum for men by dior sauvage perfume"},
		{"none", "xyzzy"},
		{"list", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ix.Perfumes(ListQuery{Q: q.q, Page: 1, Limit: 20})
			}
		})
	}
}

func BenchmarkSimilar(b *testing.B) {
	ix := realIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ix.Similar("dior-sauvage", 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDupes(b *testing.B) {
	ix := realIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ix.Dupes("creed-aventus", 20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	ix := realIndex(b)
	for _, q := range []struct {
		name string
		q    MatchQuery
	}{
		{"accords", MatchQuery{Accords: []AccordWant{{"woody", 100}, {"vanilla", 40}}, Notes: []string{"tonka bean"}, Page: 1, Limit: 20}},
		{"filtered", MatchQuery{Accords: []AccordWant{{"citrus", 100}}, Gender: "masculine", Season: "summer", Time: "day", Page: 1, Limit: 20}},
		{"filters-only", MatchQuery{Gender: "feminine", Season: "winter", Page: 1, Limit: 20}},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Match(q.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCold reports what each index operation costs a call when no
// call repeats the one before: the benchmarks above ask one question over
// and over, which keeps its postings, its scratch and its answer's
// entries in the CPU caches. A server's traffic is a long tail of
// different perfumes and profiles, so these walk many inputs (coldInputs)
// and ns/op is the cost of an answer computed afresh.
func BenchmarkCold(b *testing.B) {
	benchCold(b, realIndex(b))
}

// coldInputs are the questions a cold benchmark cycles through.
type coldInputs struct {
	slugs    []string     // every 7th perfume, most rated first
	profiles []MatchQuery // distinct match profiles
	searches []string     // names as typed, some with a typo
	lists    []ListQuery  // brand lists and catalogue pages
}

// newColdInputs takes every 7th perfume (most rated first, so popular and
// obscure ones alternate with the catalogue's shape) and builds match
// profiles from every pair of the 20 commonest accords (the load
// benchmark's match mix), each pair four ways: plain, one accord asked
// weaker, a common note added, the filters set.
func newColdInputs(ix *Index) coldInputs {
	var in coldInputs
	for i := 0; i < len(ix.order); i += 7 {
		e := &ix.entries[ix.order[i]]
		in.slugs = append(in.slugs, e.Slug())
		name := e.Name()
		if i%14 == 7 {
			name = typo(name, i)
		}
		in.searches = append(in.searches, name)
		in.lists = append(in.lists, ListQuery{Brand: e.BrandSlug(), Page: 1, Limit: 20}, ListQuery{Page: 1 + i%50, Limit: 20})
	}
	accs, _ := ix.Accords("", 20)
	notes, _ := ix.Notes(10)
	genders := []catalog.Gender{"masculine", "feminine", "unisex"}
	seasons := []string{"winter", "spring", "summer", "fall"}
	times := []string{"", "day", "night"}
	for i := range accs {
		for j := i + 1; j < len(accs); j++ {
			a, c := accs[i].Name, accs[j].Name
			n := len(in.profiles)
			in.profiles = append(in.profiles,
				MatchQuery{Accords: []AccordWant{{a, 100}, {c, 100}}, Page: 1, Limit: 20},
				MatchQuery{Accords: []AccordWant{{a, 100}, {c, float64(30 + n%60)}}, Page: 1, Limit: 20},
				MatchQuery{Accords: []AccordWant{{a, 100}, {c, 100}}, Notes: []string{notes[n%len(notes)].Name}, Page: 1, Limit: 20},
				MatchQuery{Accords: []AccordWant{{a, 100}, {c, 100}}, Gender: genders[n%3], Season: seasons[n%4], Time: times[n%3], Page: 1, Limit: 20},
			)
		}
	}
	// Shuffled, so that any number of calls sees the mix, not only the
	// most rated perfumes or the pairs of the commonest accord.
	rng := rand.New(rand.NewPCG(7, 19))
	shuffle := func(n int, swap func(i, j int)) { rng.Shuffle(n, swap) }
	shuffle(len(in.slugs), func(i, j int) { in.slugs[i], in.slugs[j] = in.slugs[j], in.slugs[i] })
	shuffle(len(in.searches), func(i, j int) { in.searches[i], in.searches[j] = in.searches[j], in.searches[i] })
	shuffle(len(in.lists), func(i, j int) { in.lists[i], in.lists[j] = in.lists[j], in.lists[i] })
	shuffle(len(in.profiles), func(i, j int) { in.profiles[i], in.profiles[j] = in.profiles[j], in.profiles[i] })
	return in
}

// typo swaps two letters of a name's first long word, the commonest slip.
func typo(name string, seed int) string {
	b := []byte(name)
	for i := 1; i+1 < len(b); i++ {
		if b[i] != b[i+1] && b[i] != ' ' && b[i+1] != ' ' && i >= seed%3+1 {
			b[i], b[i+1] = b[i+1], b[i]
			return string(b)
		}
	}
	return name
}

// benchCold runs the cold benchmarks on ix: each call asks the next input
// of its list, round and round.
func benchCold(b *testing.B, ix *Index) {
	in := newColdInputs(ix)
	each := func(name string, n int, call func(i int) error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, i := cpuTime(), 0
			for b.Loop() {
				if err := call(i % n); err != nil {
					b.Fatal(err)
				}
				i++
			}
			// CPU time, not wall time, is the measure on a machine shared
			// with other jobs: the process's user and system time per call
			// (the garbage collector's included).
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
		})
	}
	each("detail-similar5", len(in.slugs), func(i int) error { // a detail embeds its five most similar
		_, _, err := ix.Similar(in.slugs[i], 5)
		return err
	})
	each("similar", len(in.slugs), func(i int) error {
		_, _, err := ix.Similar(in.slugs[i], 10)
		return err
	})
	each("dupes", len(in.slugs), func(i int) error {
		_, _, err := ix.Dupes(in.slugs[i], 20)
		return err
	})
	each("match", len(in.profiles), func(i int) error {
		_, err := ix.Match(in.profiles[i])
		return err
	})
	each("search", len(in.searches), func(i int) error {
		ix.Perfumes(ListQuery{Q: in.searches[i], Page: 1, Limit: 20})
		return nil
	})
	// The floors of the two above: their exact totals alone, no page
	// ranked (floor_bench_test.go).
	each("match-total", len(in.profiles), func(i int) error {
		_, err := matchTotal(ix, in.profiles[i])
		return err
	})
	each("search-total", len(in.searches), func(i int) error {
		searchTotal(ix, in.searches[i])
		return nil
	})
	each("list", len(in.lists), func(i int) error {
		ix.Perfumes(in.lists[i])
		return nil
	})
	// What ten perfumes share with another, the accords and notes every
	// similar, dupes and detail answer lists beside its items: ten drawn
	// across the catalogue, as a neighbour list's lie.
	n := len(ix.entries)
	shared, docs := make([]Scored, 10), make([]uint32, 10)
	each("shared10", n, func(i int) error {
		for k := range docs {
			docs[k] = uint32((i*7919 + k*104729) % n)
			shared[k] = Scored{Entry: &ix.entries[docs[k]]}
		}
		ix.fillShared(shared, uint32(i*31%n), func(k int) uint32 { return docs[k] })
		return nil
	})
}

// cpuTime is the process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
