package usage

import (
	"testing"
	"time"
)

func TestLatencyBuckets(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {249 * time.Microsecond, 0}, {250 * time.Microsecond, 1}, {999 * time.Microsecond, 2},
		{time.Millisecond, 3}, {4 * time.Second, 14}, {5 * time.Second, 15}, {time.Hour, 15},
	} {
		if got := LatencyBucket(tc.d); got != tc.want {
			t.Errorf("LatencyBucket(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	for i := 0; i < LatencyBuckets-1; i++ {
		if LatencyBucket(LatencyBound(i)-1) != i || LatencyBucket(LatencyBound(i)) != i+1 {
			t.Errorf("bound %d (%v) is not the edge of its bucket", i, LatencyBound(i))
		}
	}
}

func TestQuantile(t *testing.T) {
	var h Histogram
	if h.Quantile(0.99) != 0 {
		t.Fatal("empty histogram")
	}
	h.Add(3, 100) // 1–2 ms
	if q := h.Quantile(0.5); q != 1500*time.Microsecond {
		t.Errorf("p50 %v, want 1.5ms", q)
	}
	h.Add(LatencyBuckets-1, 100) // 4.096 s and more
	if q := h.Quantile(0.99); q != LatencyBound(LatencyBuckets-2) {
		t.Errorf("p99 in the open bucket %v, want its lower bound", q)
	}
	h.Add(-1, 5)
	h.Add(LatencyBuckets, 5)
	if h.Total() != 200 {
		t.Errorf("buckets out of range were counted: %d", h.Total())
	}
}
