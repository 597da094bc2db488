package index

import (
	"math"
	"slices"
)

// keyed is a document with its ranking key: larger keys rank first. Keys
// end with the document's popularity, so no two are equal and every order
// is total and reproducible.
type keyed struct {
	key uint64
	doc uint32
}

// topK keeps the k largest keys pushed into it, in a min-heap so a key
// below the k-th best is rejected with one comparison. It grows as keys
// come, so a huge k (a deep page) costs only what is pushed; room for a
// usual k (a page, a similar list) is made at once.
type topK struct {
	k int
	h []keyed // min-heap on key
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]keyed, 0, min(max(k, 0), 128))} }

func (t *topK) push(key uint64, doc uint32) {
	switch {
	case len(t.h) < t.k:
		t.h = append(t.h, keyed{key, doc})
		t.up(len(t.h) - 1)
	case len(t.h) > 0 && key > t.h[0].key:
		t.h[0] = keyed{key, doc}
		t.down(0)
	}
}

// admits reports whether push would keep key now: a caller can skip
// the rest of a key's making when not even its best possible value would be
// kept.
func (t *topK) admits(key uint64) bool {
	return len(t.h) < t.k || (len(t.h) > 0 && key > t.h[0].key)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if t.h[p].key <= t.h[i].key {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(t.h) {
			return
		}
		if c+1 < len(t.h) && t.h[c+1].key < t.h[c].key {
			c++
		}
		if t.h[i].key <= t.h[c].key {
			return
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
}

// floor is the score (0–1, as keyScore reads it) of the least key kept
// once the heap is full, -1 before, +Inf when k is 0. A document scoring
// below it can't enter: its key is smaller whatever its popularity. So a
// scan can skip building keys for most documents; one scoring at least
// the floor still goes to push, where a tie is the popularity's to decide.
func (t *topK) floor() float64 {
	switch {
	case t.k <= 0:
		return math.Inf(1)
	case len(t.h) < t.k:
		return -1
	}
	return keyScore(t.h[0].key)
}

// below32 is the largest float32 under f, so that for any float32 x,
// x < f exactly when x <= below32(f): a hot loop on float32 scores
// compares with floor in one instruction, with no rounding doubt.
func below32(f float64) float32 {
	x := float32(f)
	if float64(x) >= f {
		x = math.Nextafter32(x, float32(math.Inf(-1)))
	}
	return x
}

// sorted returns the kept documents, largest key first.
func (t *topK) sorted() []keyed {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b keyed) int {
		switch {
		case a.key > b.key:
			return -1
		case a.key < b.key:
			return 1
		}
		return 0
	})
	return out
}

// paging computes the window of a page: the number of items to keep (the
// first page*limit) and where the page starts. limit and page are clamped
// to at least 1.
func paging(page, limit int) (keep, from, p, l int) {
	p, l = max(page, 1), max(limit, 1)
	const maxKeep = 1 << 30
	if p > maxKeep/l { // far past any catalogue: keep nothing
		return 0, maxKeep, p, l
	}
	return p * l, (p - 1) * l, p, l
}

// pages is the number of pages of total items.
func pages(total, limit int) int {
	return (total + limit - 1) / limit
}
