package usage

import (
	"math"
	"time"
)

// The latency histogram: fixed buckets whose upper bounds double from
// 250 µs (bucket 0: under 250 µs; bucket 1: 250–500 µs; …; bucket 15: from
// 4.096 s on). Fixed bounds make the histograms of every replica and every
// hour add up bucket by bucket, so percentiles can be read across replicas
// without keeping a single request's time.
const (
	LatencyBuckets = 16
	latencyFirst   = 250 * time.Microsecond
)

// LatencyBucket is the bucket a request that took d falls in.
func LatencyBucket(d time.Duration) int {
	for i := 0; i < LatencyBuckets-1; i++ {
		if d < LatencyBound(i) {
			return i
		}
	}
	return LatencyBuckets - 1
}

// LatencyBound is the upper bound of bucket i (exclusive); the last bucket
// has none and answers the largest duration.
func LatencyBound(i int) time.Duration {
	if i >= LatencyBuckets-1 {
		return math.MaxInt64
	}
	return latencyFirst << i
}

// Latency is how many requests of one endpoint, in the hour starting at
// Hour (UTC), took a time within latency bucket Bucket.
type Latency struct {
	Endpoint string
	Hour     time.Time
	Bucket   int
	Count    int64
}

// Histogram is a latency histogram: requests per bucket.
type Histogram [LatencyBuckets]int64

// Add counts n requests of bucket b.
func (h *Histogram) Add(b int, n int64) {
	if b >= 0 && b < LatencyBuckets {
		h[b] += n
	}
}

// Total is the number of requests in h.
func (h *Histogram) Total() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// Quantile estimates the q-quantile (0 < q ≤ 1) of h: the upper bound of
// the bucket holding it, linearly interpolated within the bucket. The last
// bucket has no upper bound; a quantile there answers its lower bound. An
// empty histogram answers 0.
func (h *Histogram) Quantile(q float64) time.Duration {
	total := h.Total()
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	var seen float64
	for i, c := range h {
		if c == 0 {
			continue
		}
		if seen+float64(c) >= rank {
			lo := time.Duration(0)
			if i > 0 {
				lo = LatencyBound(i - 1)
			}
			if i == LatencyBuckets-1 {
				return lo
			}
			hi := LatencyBound(i)
			frac := (rank - seen) / float64(c)
			return lo + time.Duration(frac*float64(hi-lo))
		}
		seen += float64(c)
	}
	return LatencyBound(LatencyBuckets - 2)
}

// ViewKind is the answer through which a perfume was viewed.
type ViewKind string

// The kinds of view the meter counts.
const (
	ViewDetail  ViewKind = "detail"
	ViewSimilar ViewKind = "similar"
	ViewDupes   ViewKind = "dupes"
)

// Valid reports whether k is one of the counted kinds.
func (k ViewKind) Valid() bool { return k == ViewDetail || k == ViewSimilar || k == ViewDupes }

// View is how many times one perfume was viewed through one kind of answer
// in one UTC day starting at Day.
type View struct {
	PerfumeID int64
	Kind      ViewKind
	Day       time.Time
	Count     int64
}

// PerfumeViews totals the views of one perfume over a span of days.
type PerfumeViews struct {
	PerfumeID              int64
	Detail, Similar, Dupes int64
}

// Add counts n views of kind.
func (v *PerfumeViews) Add(kind ViewKind, n int64) {
	switch kind {
	case ViewDetail:
		v.Detail += n
	case ViewSimilar:
		v.Similar += n
	case ViewDupes:
		v.Dupes += n
	}
}

// Total is the perfume's views of every kind.
func (v PerfumeViews) Total() int64 { return v.Detail + v.Similar + v.Dupes }

// Search is how many times a search found nothing, by its normalised query
// (folded as the search index folds it), in one UTC day starting at Day.
type Search struct {
	Query string
	Day   time.Time
	Count int64
}
