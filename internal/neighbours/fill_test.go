package neighbours_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/neighbours"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// perfumes makes n perfumes with accords and notes from a small
// vocabulary, so every perfume has many neighbours, and price tiers so
// they have dupes.
func perfumes(n int) []catalog.Perfume {
	r := rand.New(rand.NewPCG(1, 2))
	accords := []string{"woody", "citrus", "vanilla", "amber", "floral", "fresh spicy", "aromatic", "musky", "leather", "powdery"}
	notes := []string{"bergamot", "cedar", "vanilla", "rose", "jasmine", "musk", "patchouli", "lemon", "amber", "oud", "iris", "tonka bean"}
	tiers := []catalog.PriceTier{"budget", "mid", "premium", "luxury", ""}
	out := make([]catalog.Perfume, n)
	for i := range out {
		p := catalog.Perfume{ID: int64(i + 1), Name: fmt.Sprintf("Scent %d", i), Brand: fmt.Sprintf("House %d", i%97),
			Slug: fmt.Sprintf("scent-%d", i), BrandSlug: fmt.Sprintf("house-%d", i%97), Year: 2000 + i%20,
			Gender: catalog.Unisex, Rating: 3.5, RatingCount: r.IntN(5000), PriceTier: tiers[i%len(tiers)]}
		for j, a := range r.Perm(len(accords))[:3+r.IntN(4)] {
			p.Accords = append(p.Accords, catalog.AccordStrength{Name: accords[a], Strength: float64(100 - 15*j)})
		}
		for _, k := range r.Perm(len(notes))[:2+r.IntN(6)] {
			p.Notes.Middle = append(p.Notes.Middle, notes[k])
		}
		out[i] = p
	}
	return out
}

func build(ps []catalog.Perfume) *index.Index { return index.Build(ps, index.Options{}) }

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "n.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// answers is the similar and dupes lists of every 7th perfume (every
// chunk's), as slugs and scores.
func answers(t *testing.T, ix *index.Index, ps []catalog.Perfume) []string {
	t.Helper()
	var out []string
	for i := 0; i < len(ps); i += 7 {
		p := ps[i]
		_, s, err := ix.Similar(p.Slug, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, d, _ := ix.Dupes(p.Slug, 20)
		line := p.Slug + ":"
		for _, it := range append(s, d...) {
			line += fmt.Sprintf(" %s=%.1f", it.Slug(), it.Score)
		}
		out = append(out, line)
	}
	return out
}

const n = 2*index.NeighbourChunk + 300 // three chunks, the last partial

func TestFillStoresAndRestartLoads(t *testing.T) {
	ps := perfumes(n)
	db := openDB(t)
	ctx := context.Background()
	ix := build(ps)
	want := answers(t, ix, ps) // ranked: nothing in place yet
	if err := db.PutNeighbourChunk(ctx, "an-older-catalogue", 0, []byte("x")); err != nil {
		t.Fatal(err)
	}
	st, err := neighbours.Fill(ctx, ix, neighbours.Config{Store: db, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks != 3 || st.Computed != 3 || st.Loaded != 0 || ix.NeighboursReady() != 3 {
		t.Fatalf("first fill: %+v, %d ready", st, ix.NeighboursReady())
	}
	if got := answers(t, ix, ps); !slices.Equal(got, want) {
		t.Fatal("answers from the lists differ from the ranked ones")
	}
	if cs, _ := db.NeighbourChunks(ctx, ix.NeighbourKey()); len(cs) != 3 {
		t.Fatalf("stored chunks: %v", cs)
	}
	if cs, _ := db.NeighbourChunks(ctx, "an-older-catalogue"); len(cs) != 0 {
		t.Fatal("the lists of another catalogue were not dropped")
	}

	// A restart on the same catalogue loads everything and ranks nothing.
	again := build(ps)
	st, err = neighbours.Fill(ctx, again, neighbours.Config{Store: db})
	if err != nil {
		t.Fatal(err)
	}
	if st.Computed != 0 || st.Loaded != 3 {
		t.Fatalf("restart: %+v", st)
	}
	if got := answers(t, again, ps); !slices.Equal(got, want) {
		t.Fatal("answers from loaded lists differ from the ranked ones")
	}

	// Load only loads.
	third := build(ps)
	if got := neighbours.Load(ctx, third, db, nil); got != 3 || third.NeighboursReady() != 3 {
		t.Fatalf("Load = %d, %d ready", got, third.NeighboursReady())
	}

	// A changed catalogue ranks again.
	ps[7].RatingCount += 1000
	changed := build(ps)
	st, err = neighbours.Fill(ctx, changed, neighbours.Config{Store: db})
	if err != nil || st.Computed != 3 {
		t.Fatalf("changed catalogue: %+v, %v", st, err)
	}
}

// TestFillReplicas fills two indexes of one catalogue at once over one
// store, as two replicas would: both end with every chunk, and what one
// ranked the other may load.
func TestFillReplicas(t *testing.T) {
	ps := perfumes(n)
	db := openDB(t)
	a, b := build(ps), build(ps)
	var wg sync.WaitGroup
	var sa, sb neighbours.Stats
	var ea, eb error
	wg.Go(func() {
		sa, ea = neighbours.Fill(context.Background(), a, neighbours.Config{Store: db, Poll: time.Millisecond})
	})
	wg.Go(func() {
		sb, eb = neighbours.Fill(context.Background(), b, neighbours.Config{Store: db, Poll: time.Millisecond})
	})
	wg.Wait()
	if ea != nil || eb != nil {
		t.Fatal(ea, eb)
	}
	for _, st := range []neighbours.Stats{sa, sb} {
		if st.Loaded+st.Computed != 3 {
			t.Fatalf("a replica's fill: %+v", st)
		}
	}
	t.Logf("replica a: %+v; b: %+v", sa, sb)
	if !slices.Equal(answers(t, a, ps), answers(t, b, ps)) {
		t.Fatal("replicas answer differently")
	}
}

// failing is a store that is down.
type failing struct{}

var errDown = errors.New("store down")

func (failing) NeighbourChunks(context.Context, string) ([]int, error) { return nil, errDown }
func (failing) NeighbourChunk(context.Context, string, int) ([]byte, error) {
	return nil, errDown
}
func (failing) PutNeighbourChunk(context.Context, string, int, []byte) error { return errDown }
func (failing) DropNeighbours(context.Context, string) error                 { return errDown }

func TestFillWithoutAStore(t *testing.T) {
	ps := perfumes(n)
	for name, store := range map[string]catalog.NeighbourStore{"none": nil, "down": failing{}} {
		ix := build(ps)
		want := answers(t, ix, ps)
		st, err := neighbours.Fill(context.Background(), ix, neighbours.Config{Store: store})
		if err != nil || st.Computed != 3 || ix.NeighboursReady() != 3 {
			t.Fatalf("%s: %+v, %v", name, st, err)
		}
		if !slices.Equal(answers(t, ix, ps), want) {
			t.Fatalf("%s: answers differ", name)
		}
	}
}

func TestFillRefusesADamagedChunk(t *testing.T) {
	ps := perfumes(n)
	db := openDB(t)
	ctx := context.Background()
	ix := build(ps)
	want := answers(t, ix, ps)
	if err := db.PutNeighbourChunk(ctx, ix.NeighbourKey(), 1, []byte("FNB1 not a chunk")); err != nil {
		t.Fatal(err)
	}
	st, err := neighbours.Fill(ctx, ix, neighbours.Config{Store: db})
	if err != nil || st.Refused != 1 || st.Computed != 3 {
		t.Fatalf("%+v, %v", st, err)
	}
	if !slices.Equal(answers(t, ix, ps), want) {
		t.Fatal("answers differ")
	}
}

func TestFillStopsWithItsContext(t *testing.T) {
	ix := build(perfumes(n))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := neighbours.Fill(ctx, ix, neighbours.Config{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if ix.NeighboursReady() != 0 {
		t.Fatal("ranked after its context ended")
	}
}
