package ratelimit

// The in-process counters of one sliding window. Times are Unix nanoseconds.
//
// A window (now-span, now] admits a request when, counting it, it holds at
// most limit admitted requests. Small limits keep the exact timestamps of
// the newest admitted requests (at most limit of them: older ones cannot
// change a decision). Large limits keep one counter per bucket of width w;
// the bucket that holds now-span is counted in full, which can only
// overcount, so a bucketed window never over-admits and under-admits at
// most as if it were one bucket longer.

// counter is one window of one key.
type counter interface {
	// prune forgets what has left the window ending at now.
	prune(now int64)
	// used is the number of admitted requests in the window (after prune).
	used() int64
	// add counts one admitted request at now.
	add(now int64)
	// oldestExpiry is when the oldest counted request leaves the window.
	oldestExpiry() int64
	// freeAt is when the window will hold at most limit-need requests, so
	// need more fit; meaningful when used()+need > limit.
	freeAt(limit, need int64) int64
	// cancel un-counts one request counted at at, if still counted.
	cancel(at int64)
}

// floorDiv is a/b rounded towards minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// exactCounter keeps timestamps, oldest first, in a ring.
type exactCounter struct {
	span  int64
	limit int // the buffer never grows past it
	ts    []int64
	head  int
	n     int
}

func (c *exactCounter) at(i int) int64 { return c.ts[(c.head+i)%len(c.ts)] }

func (c *exactCounter) prune(now int64) {
	for c.n > 0 && c.at(0) <= now-c.span {
		c.head = (c.head + 1) % len(c.ts)
		c.n--
	}
}

func (c *exactCounter) used() int64 { return int64(c.n) }

func (c *exactCounter) add(now int64) {
	if c.n == len(c.ts) {
		c.resize(max(min(max(2*len(c.ts), 8), c.limit), c.n+1))
	}
	c.ts[(c.head+c.n)%len(c.ts)] = now
	c.n++
}

// resize copies the entries into a buffer of capacity size, dropping the
// oldest when they do not fit.
func (c *exactCounter) resize(size int) {
	drop := max(c.n-size, 0)
	buf := make([]int64, size)
	for i := drop; i < c.n; i++ {
		buf[i-drop] = c.at(i)
	}
	c.ts, c.head, c.n = buf, 0, c.n-drop
}

// fit keeps the newest limit entries and a buffer no larger than limit, so
// memory follows the limit when an override shrinks it.
func (c *exactCounter) fit(limit int64) {
	c.limit = int(limit)
	if int64(len(c.ts)) > limit {
		c.resize(int(limit))
	}
}

func (c *exactCounter) oldestExpiry() int64 { return c.at(0) + c.span }

func (c *exactCounter) freeAt(limit, need int64) int64 {
	// Dropping the n-limit+need oldest leaves limit-need; the last of them
	// is at index n-limit+need-1, or 0 when fit has already trimmed to limit.
	return c.at(min(max(c.n-int(limit)+int(need)-1, 0), c.n-1)) + c.span
}

func (c *exactCounter) cancel(at int64) {
	for i := c.n - 1; i >= 0; i-- {
		if c.at(i) != at {
			continue
		}
		for j := i; j < c.n-1; j++ {
			c.ts[(c.head+j)%len(c.ts)] = c.at(j + 1)
		}
		c.n--
		return
	}
}

// bucketCounter keeps one count per bucket in a ring of span/width+1.
type bucketCounter struct {
	span, width int64
	counts      []uint32
	lo          int64 // oldest bucket that may hold counts; buckets below are empty
	total       int64
}

func newBucketCounter(span, width int64) *bucketCounter {
	return &bucketCounter{span: span, width: width, counts: make([]uint32, span/width+1), lo: -1 << 62}
}

func (c *bucketCounter) slot(idx int64) *uint32 {
	return &c.counts[floorMod(idx, int64(len(c.counts)))]
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func (c *bucketCounter) prune(now int64) {
	lo0 := floorDiv(now-c.span, c.width)
	cur := floorDiv(now, c.width)
	if lo0 > c.lo {
		if lo0-c.lo >= int64(len(c.counts)) {
			clear(c.counts)
			c.total = 0
		} else {
			for i := c.lo; i < lo0; i++ {
				c.total -= int64(*c.slot(i))
				*c.slot(i) = 0
			}
		}
		c.lo = lo0
	}
	// Step over empty buckets so the oldest count is found at lo; each
	// bucket is stepped over once, so this is O(1) amortised.
	for c.lo < cur && *c.slot(c.lo) == 0 {
		c.lo++
	}
}

func (c *bucketCounter) used() int64 { return c.total }

func (c *bucketCounter) add(now int64) {
	*c.slot(floorDiv(now, c.width))++
	c.total++
}

func (c *bucketCounter) oldestExpiry() int64 { return (c.lo+1)*c.width + c.span }

func (c *bucketCounter) freeAt(limit, more int64) int64 {
	need := c.total - limit + more
	var acc int64
	last := c.lo + int64(len(c.counts)) - 1
	for i := c.lo; i <= last; i++ {
		acc += int64(*c.slot(i))
		if acc >= need {
			return (i+1)*c.width + c.span
		}
	}
	return (last+1)*c.width + c.span
}

func (c *bucketCounter) cancel(at int64) {
	idx := floorDiv(at, c.width)
	if idx < c.lo || idx >= c.lo+int64(len(c.counts)) {
		return
	}
	if s := c.slot(idx); *s > 0 {
		*s--
		c.total--
	}
}

// fitCounter returns a counter of the kind limit calls for, converting c
// when the limit crossed exactMax. Conversions never lose a count: exact to
// buckets is lossless, buckets to exact places each request at the latest
// instant of its bucket, which keeps it in the window at least as long.
func fitCounter(c counter, span, width, limit, exactMax int64) counter {
	switch cc := c.(type) {
	case nil:
		if limit <= exactMax {
			return &exactCounter{span: span, limit: int(limit)}
		}
		return newBucketCounter(span, width)
	case *exactCounter:
		if limit <= exactMax {
			cc.fit(limit)
			return cc
		}
		b := newBucketCounter(span, width)
		for i := 0; i < cc.n; i++ {
			if i == 0 {
				b.lo = floorDiv(cc.at(0), width)
			}
			b.add(cc.at(i))
		}
		return b
	case *bucketCounter:
		if limit > exactMax {
			return cc
		}
		return bucketsToExact(cc, limit)
	}
	panic("access: unknown counter type")
}

// bucketsToExact keeps the newest limit requests of c as timestamps.
func bucketsToExact(c *bucketCounter, limit int64) *exactCounter {
	var rev []int64 // newest first
	for i := c.lo + int64(len(c.counts)) - 1; i >= c.lo && int64(len(rev)) < limit; i-- {
		for k := uint32(0); k < *c.slot(i) && int64(len(rev)) < limit; k++ {
			rev = append(rev, (i+1)*c.width-1)
		}
	}
	e := &exactCounter{span: c.span, limit: int(limit), ts: make([]int64, max(len(rev), 1))}
	for i := len(rev) - 1; i >= 0; i-- {
		e.add(rev[i])
	}
	e.fit(limit)
	return e
}
