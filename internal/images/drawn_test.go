package images

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/view"
)

// The image host meets view.Builder' prefetcher, whose array it spells
// without importing view: a change of view.PrefetchBatch must fail here,
// not silently turn prefetching off.
var _ interface {
	PrefetchImages(ids [view.PrefetchBatch]int64, n int)
} = (*Service)(nil)

// TestDrawnVersionsDenseAndMap: a catalogue of small ids keeps its drawn
// versions in an array by id, one of large ids in the map, and both
// answer the same: nothing before a put, the version after, whatever the id.
func TestDrawnVersionsDenseAndMap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []int64
		dense bool
	}{
		{"small ids", []int64{1, 3, 7, 2}, true},
		{"sparse ids", []int64{5, 1 << 40}, false},
		{"no ids", nil, false},
		{"negative ids only", []int64{-3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDrawnVersions("epoch", tc.ids)
			if got := len(d.dense) > 0; got != tc.dense {
				t.Fatalf("dense = %v, want %v", got, tc.dense)
			}
			for _, id := range append(tc.ids, -1, 1<<20, 0) {
				if v, ok := d.get(id); ok {
					t.Fatalf("get(%d) = %v before any put", id, v)
				}
				want := version(uint64(id)*2654435761 + 1)
				if got := d.put(id, want); got != want {
					t.Fatalf("put(%d) returned %v", id, got)
				}
				if v, ok := d.get(id); !ok || v != want {
					t.Fatalf("get(%d) = %v, %v; want %v", id, v, ok, want)
				}
			}
		})
	}
}

// TestDrawnMemoOneBuilder: requests that find a new catalogue at once get
// one memo, made once (one read of the ids, one epoch).
func TestDrawnMemoOneBuilder(t *testing.T) {
	var dm drawnMemo
	var reads atomic.Int64
	ids := func() []int64 {
		reads.Add(1)
		time.Sleep(20 * time.Millisecond) // long enough for the others to arrive
		return []int64{1, 2, 3}
	}
	got := make([]*drawnVersions, 16)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			<-start
			got[i] = dm.of("catalogue", ids)
		})
	}
	close(start)
	wg.Wait()
	for _, d := range got {
		if d != got[0] {
			t.Fatal("requests got different memos of one catalogue")
		}
	}
	if reads.Load() != 1 || dm.epochs.Load() != 1 {
		t.Fatalf("ids read %d times, %d epochs; want 1 and 1", reads.Load(), dm.epochs.Load())
	}
}
