package index

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
)

// facetMask is a set of facets: bit i for FacetNames[i].
type facetMask uint8

// maskOf is the set of the facets named (names outside FacetNames are
// left out; resolveBrowse refuses them).
func maskOf(names []string) facetMask {
	var m facetMask
	for i, name := range FacetNames {
		if containsString(names, name) {
			m |= 1 << i
		}
	}
	return m
}

func (m facetMask) has(name string) bool {
	i := slices.Index(FacetNames, name)
	return i >= 0 && m&(1<<i) != 0
}

// facetMemoSets is how many filtered sets one generation of the facet
// memo holds; the memo keeps two, so at most twice this many sets. A set
// with every facet takes a few kilobytes (fifty accords and notes, a
// count per year), so the memo stays within a few megabytes.
const facetMemoSets = 256

// facetMemo keeps the facets counted for recent filtered sets. Facets
// depend only on the filters (not on the page, limit or sort), and
// callers page through and re-sort one set, and many visitors open the
// same brand's, note's or accord's list: counting a set's facets costs a
// walk of tens of thousands of perfumes, finding them here a map lookup.
// It belongs to one index, so a new catalogue starts with an empty memo.
//
// Two generations bound it: sets go into cur, and when cur is full it
// becomes prev (the older prev dropped); a set found in prev moves back
// into cur, so the sets in use stay.
type facetMemo struct {
	mu        sync.Mutex
	cur, prev map[string]memoFacets
}

// memoFacets is a set's facets counted so far: those in mask. Its
// slices are shared by every answer given from it and never written.
type memoFacets struct {
	f    Facets
	mask facetMask
}

// get returns the facets kept for a set (mask 0: none).
func (m *facetMemo) get(key string) memoFacets {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cur[key]; ok {
		return v
	}
	v, ok := m.prev[key]
	if ok {
		delete(m.prev, key)
		m.putLocked(key, v)
	}
	return v
}

// put keeps a set's facets.
func (m *facetMemo) put(key string, v memoFacets) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(key, v)
}

func (m *facetMemo) putLocked(key string, v memoFacets) {
	if m.cur == nil {
		m.cur = make(map[string]memoFacets)
	}
	m.cur[key] = v
	if len(m.cur) >= facetMemoSets {
		m.prev, m.cur = m.cur, make(map[string]memoFacets)
	}
}

// reset empties the memo (for benchmarks of the first count of a set).
func (m *facetMemo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.cur)
	clear(m.prev)
}

// merge adds the facets in mask of g to v.
func (v memoFacets) merge(g *Facets, mask facetMask) memoFacets {
	for i, name := range FacetNames {
		if mask&(1<<i) == 0 {
			continue
		}
		*v.f.field(name) = *g.field(name)
	}
	v.mask |= mask
	return v
}

// answer is a new Facets holding the facets in mask (kept in v), the
// slices shared.
func (v memoFacets) answer(mask facetMask) *Facets {
	out := &Facets{}
	for i, name := range FacetNames {
		if mask&(1<<i) != 0 {
			*out.field(name) = *v.f.field(name)
		}
	}
	return out
}

// field is the counts of a facet by name.
func (f *Facets) field(name string) *[]FacetCount {
	switch name {
	case FacetGender:
		return &f.Gender
	case FacetSeason:
		return &f.Season
	case FacetTime:
		return &f.Time
	case FacetAccords:
		return &f.Accords
	case FacetNotes:
		return &f.Notes
	}
	return &f.Year
}

// memoKey is the filtered set of f and the text query q (its words
// matter only when it has any: text) as a string: every filter in a fixed
// order, names as ids sorted, so the same set asked in other words, pages
// or sorts has one key.
func (f *browseFilter) memoKey(q string, text bool) string {
	b := make([]byte, 0, 64)
	b = append(b, f.genders, byte(f.season+1), byte(f.time+1))
	b = binary.AppendVarint(b, int64(f.brand))
	b = binary.AppendVarint(b, int64(f.perfumer))
	b = binary.AppendVarint(b, int64(f.years.From))
	b = binary.AppendVarint(b, int64(f.years.To))
	b = binary.AppendUvarint(b, math.Float64bits(f.minRating))
	for _, ids := range [][]uint32{f.accords, f.notes, f.notAcc, f.notNot} {
		b = binary.AppendUvarint(b, uint64(len(ids)))
		for _, id := range slices.Sorted(slices.Values(ids)) {
			b = binary.AppendUvarint(b, uint64(id))
		}
	}
	if text {
		b = append(b, q...)
	}
	return string(b)
}
