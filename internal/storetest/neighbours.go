package storetest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// RunNeighbourStore runs the neighbour-list contract against stores made
// by open.
func RunNeighbourStore(t *testing.T, open func(t *testing.T) catalog.NeighbourStore) {
	t.Run("PutGetList", func(t *testing.T) { testNeighbourPutGet(t, open(t)) })
	t.Run("FirstWriterWins", func(t *testing.T) { testNeighbourFirstWins(t, open(t)) })
	t.Run("Drop", func(t *testing.T) { testNeighbourDrop(t, open(t)) })
}

func testNeighbourPutGet(t *testing.T, s catalog.NeighbourStore) {
	ctx := context.Background()
	if cs, err := s.NeighbourChunks(ctx, "k1"); err != nil || len(cs) != 0 {
		t.Fatalf("empty store: NeighbourChunks = %v, %v", cs, err)
	}
	if _, err := s.NeighbourChunk(ctx, "k1", 0); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("missing chunk: err = %v, want ErrNotFound", err)
	}
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 100_000) // the size of a real chunk, zero bytes included
	for _, c := range []int{3, 0, 1} {
		if err := s.PutNeighbourChunk(ctx, "k1", c, append([]byte{byte(c)}, big...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutNeighbourChunk(ctx, "k2", 0, []byte("other")); err != nil {
		t.Fatal(err)
	}
	cs, err := s.NeighbourChunks(ctx, "k1")
	if err != nil || !slices.Equal(cs, []int{0, 1, 3}) {
		t.Fatalf("NeighbourChunks = %v, %v; want [0 1 3]", cs, err)
	}
	b, err := s.NeighbourChunk(ctx, "k1", 3)
	if err != nil || !bytes.Equal(b, append([]byte{3}, big...)) {
		t.Fatalf("NeighbourChunk(k1, 3): %d bytes, %v", len(b), err)
	}
	if b, err := s.NeighbourChunk(ctx, "k2", 0); err != nil || string(b) != "other" {
		t.Fatalf("NeighbourChunk(k2, 0) = %q, %v", b, err)
	}
}

func testNeighbourFirstWins(t *testing.T, s catalog.NeighbourStore) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			if err := s.PutNeighbourChunk(ctx, "k", 0, []byte{byte(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	first, err := s.NeighbourChunk(ctx, "k", 0)
	if err != nil || len(first) != 1 {
		t.Fatalf("NeighbourChunk = %v, %v", first, err)
	}
	if err := s.PutNeighbourChunk(ctx, "k", 0, []byte("later")); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.NeighbourChunk(ctx, "k", 0); !bytes.Equal(b, first) {
		t.Fatalf("a second put replaced the chunk: %q, want %q", b, first)
	}
}

func testNeighbourDrop(t *testing.T, s catalog.NeighbourStore) {
	ctx := context.Background()
	for _, k := range []string{"old", "new"} {
		for c := range 3 {
			if err := s.PutNeighbourChunk(ctx, k, c, []byte(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.DropNeighbours(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if cs, err := s.NeighbourChunks(ctx, "old"); err != nil || len(cs) != 0 {
		t.Fatalf("after drop, old: %v, %v", cs, err)
	}
	if cs, err := s.NeighbourChunks(ctx, "new"); err != nil || len(cs) != 3 {
		t.Fatalf("after drop, new: %v, %v", cs, err)
	}
}
