package index

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// ranked is what Similar and Dupes answer without kept lists, for every
// limit the tests ask.
type ranked struct {
	similar, dupes map[int][]Scored
}

var (
	similarLimits = []int{0, 1, 5, 10, KeptSimilar, KeptSimilar + 5}
	dupesLimits   = []int{0, 1, 6, KeptDupes, 50}
)

func rankAll(t *testing.T, ix *Index, docs []uint32) map[uint32]ranked {
	t.Helper()
	out := map[uint32]ranked{}
	for _, d := range docs {
		if ix.NeighbourChunkReady(int(d) / NeighbourChunk) {
			t.Fatal("lists ready before they were computed")
		}
		r := ranked{similar: map[int][]Scored{}, dupes: map[int][]Scored{}}
		slug := ix.entries[d].Slug()
		for _, l := range similarLimits {
			_, r.similar[l], _ = ix.Similar(slug, l)
		}
		for _, l := range dupesLimits {
			_, r.dupes[l], _ = ix.Dupes(slug, l)
		}
		out[d] = r
	}
	return out
}

// checkKept asks Similar, Dupes and SimilarAndDupes again and wants the
// answers of rankAll, item for item.
func checkKept(t *testing.T, ix *Index, want map[uint32]ranked) {
	t.Helper()
	for d, r := range want {
		slug := ix.entries[d].Slug()
		for _, l := range similarLimits {
			_, got, _ := ix.Similar(slug, l)
			if !sameItems(got, r.similar[l]) {
				t.Fatalf("Similar(%s, %d) from the kept list differs from the ranking:\n got %v\nwant %v", slug, l, slugsOf(got), slugsOf(r.similar[l]))
			}
		}
		for _, l := range dupesLimits {
			_, got, _ := ix.Dupes(slug, l)
			if !sameItems(got, r.dupes[l]) {
				t.Fatalf("Dupes(%s, %d) from the kept list differs from the ranking:\n got %v\nwant %v", slug, l, slugsOf(got), slugsOf(r.dupes[l]))
			}
		}
		_, s, ds, _ := ix.SimilarAndDupes(slug, 5, 6)
		if !sameItems(s, r.similar[5]) {
			t.Fatalf("SimilarAndDupes(%s): similar differs", slug)
		}
		if !sameItems(ds, r.dupes[6]) {
			t.Fatalf("SimilarAndDupes(%s): dupes differ", slug)
		}
		// One list kept, the other deeper than kept (ranked).
		_, s, ds, _ = ix.SimilarAndDupes(slug, 5, 50)
		if !sameItems(s, r.similar[5]) || !sameItems(ds, r.dupes[50]) {
			t.Fatalf("SimilarAndDupes(%s, 5, 50) differs", slug)
		}
	}
}

// sameItems compares answer items by what an answer shows (two builds'
// entries are different pointers).
func sameItems(a, b []Scored) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Score != b[i].Score ||
			!reflect.DeepEqual(a[i].SharedAccords, b[i].SharedAccords) || !reflect.DeepEqual(a[i].SharedNotes, b[i].SharedNotes) {
			return false
		}
	}
	return true
}

func slugsOf(items []Scored) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Slug()
	}
	return out
}

// TestNeighboursSmall computes every list of the small catalogue (curated
// pairs included) and checks every answer against the ranking.
func TestNeighboursSmall(t *testing.T) {
	ix := smallIndex()
	docs := make([]uint32, ix.Len())
	for i := range docs {
		docs[i] = uint32(i)
	}
	want := rankAll(t, ix, docs)
	for c := range ix.NeighbourChunks() {
		if _, err := ix.ComputeNeighbours(c); err != nil {
			t.Fatal(err)
		}
	}
	if ix.NeighboursReady() != ix.NeighbourChunks() {
		t.Fatalf("%d of %d chunks ready", ix.NeighboursReady(), ix.NeighbourChunks())
	}
	checkKept(t, ix, want)
}

// TestNeighboursReal computes the first and the last (partial) chunk of
// the bundled catalogue and checks their perfumes' answers, then loads the
// encoded chunks into a second build of the same catalogue.
func TestNeighboursReal(t *testing.T) {
	ps, ref := realCatalogue(t)
	ix := Build(ps, Options{AccordColor: ref.Color})
	last := ix.NeighbourChunks() - 1
	step := 3
	if testing.Short() || racedetect.Enabled {
		step = 164
	}
	var docs []uint32
	for _, c := range []int{0, last} {
		for d := c * NeighbourChunk; d < min((c+1)*NeighbourChunk, ix.Len()); d += step {
			docs = append(docs, uint32(d))
		}
	}
	want := rankAll(t, ix, docs)
	blobs := map[int][]byte{}
	for _, c := range []int{0, last} {
		b, err := ix.ComputeNeighbours(c)
		if err != nil {
			t.Fatal(err)
		}
		blobs[c] = b
	}
	checkKept(t, ix, want)

	again := Build(ps, Options{AccordColor: ref.Color})
	if again.NeighbourKey() != ix.NeighbourKey() {
		t.Fatal("two builds of one catalogue have different neighbour keys")
	}
	for c, b := range blobs {
		if err := again.LoadNeighbours(c, b); err != nil {
			t.Fatal(err)
		}
	}
	if again.NeighboursReady() != 2 {
		t.Fatalf("%d chunks ready after loading two", again.NeighboursReady())
	}
	checkKept(t, again, want)

	// Any change the rankings read changes the key (three more builds:
	// not under the race detector, which has nothing to find here).
	if racedetect.Enabled {
		return
	}
	changed := make(map[string]string)
	for name, edit := range map[string]func(ps []catalog.Perfume, o *Options){
		"rating count": func(ps []catalog.Perfume, _ *Options) { ps[5].RatingCount++ },
		"an accord":    func(ps []catalog.Perfume, _ *Options) { ps[9].Accords[0].Strength-- },
		"curated":      func(ps []catalog.Perfume, o *Options) { o.Curated = [][2]string{{ps[0].Slug, ps[1].Slug}} },
	} {
		ps, _ := realCatalogue(t)
		opts := Options{AccordColor: ref.Color}
		edit(ps, &opts)
		changed[name] = Build(ps, opts).NeighbourKey()
	}
	for name, key := range changed {
		if key == ix.NeighbourKey() {
			t.Errorf("changing %s leaves the neighbour key unchanged", name)
		}
	}
}

// TestLoadNeighboursRefuses checks that a chunk not made for this index,
// or damaged, is refused and nothing is put in place.
func TestLoadNeighboursRefuses(t *testing.T) {
	ix := smallIndex()
	good, err := ix.ComputeNeighbours(0)
	if err != nil {
		t.Fatal(err)
	}
	other := smallIndex()
	for name, b := range map[string][]byte{
		"empty":      nil,
		"magic":      append([]byte("XNB1"), good[4:]...),
		"truncated":  good[:len(good)-1],
		"longer":     append(append([]byte(nil), good...), 0),
		"first":      patch(good, 8, 1),
		"count":      patch(good, 12, 99),
		"offsets":    patch(good, 20, 1<<30),
		"doc":        patch(good, len(good)-6, 1<<20),
		"score":      patch16(good, len(good)-2, 1001),
		"format":     patch(good, 4, 99),
		"wrongChunk": good,
	} {
		c := 0
		if name == "wrongChunk" {
			c = 1
		}
		err := other.LoadNeighbours(c, b)
		if err == nil || !errors.Is(err, errChunk) {
			t.Errorf("%s: LoadNeighbours = %v, want errChunk", name, err)
		}
	}
	if other.NeighboursReady() != 0 {
		t.Fatal("a refused chunk was put in place")
	}
}

func patch(b []byte, at int, v uint32) []byte {
	out := append([]byte(nil), b...)
	out[at], out[at+1], out[at+2], out[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return out
}

func patch16(b []byte, at int, v uint16) []byte {
	out := append([]byte(nil), b...)
	out[at], out[at+1] = byte(v), byte(v>>8)
	return out
}

// TestNeighboursWhileServing computes chunks while queries read them (for
// the race detector).
func TestNeighboursWhileServing(t *testing.T) {
	ix := smallIndex()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for i := range ix.Len() {
					ix.Similar(ix.entries[i].Slug(), 5)
					ix.Dupes(ix.entries[i].Slug(), 5)
				}
			}
		})
	}
	wg.Go(func() {
		if _, err := ix.ComputeNeighbours(0); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
}
