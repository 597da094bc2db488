package index

import (
	"math/rand/v2"
	"testing"
)

// TestOrderRunsKeepEveryRun checks that keeping a run through the prefix
// bitmaps keeps exactly the run's documents of the set, for runs inside
// one step, across boundaries, from the start, to the end and empty.
func TestOrderRunsKeepEveryRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 63, 2047, 2048, 5000, 70_001} {
		order := make([]uint32, n)
		for i := range order {
			order[i] = uint32(i)
		}
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		words := (n + 63) / 64
		r := newOrderRuns(order, words)
		set := make([]uint64, words)
		for d := range n {
			if rng.IntN(3) > 0 {
				set[d/64] |= 1 << (d % 64)
			}
		}
		runs := [][2]int{{0, 0}, {0, n}, {n, n}, {0, n / 2}, {n / 2, n}}
		for range 40 {
			lo := rng.IntN(n + 1)
			runs = append(runs, [2]int{lo, lo + rng.IntN(n-lo+1)})
		}
		for _, run := range runs {
			lo, hi := run[0], run[1]
			want := make([]uint64, words)
			for _, d := range order[lo:hi] {
				want[d/64] |= set[d/64] & (1 << (d % 64))
			}
			got := append([]uint64(nil), set...)
			r.keep(got, make([]uint64, words), lo, hi)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d, run [%d,%d): word %d is %x, want %x", n, lo, hi, i, got[i], want[i])
				}
			}
		}
	}
}
