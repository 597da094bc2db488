package index

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// refFacet is what counting the accords or the notes of a set reads.
type refFacet struct {
	counts  []int32    // per id: its perfumes in the catalogue
	bits    [][]uint64 // per id: its bitmap, nil for a rare one
	byCount []uint32   // ids by counts, most first, then key
	keys    []string   // per id: its folded name (the tie-break)
	names   []string   // per id: its display name
	// off and post are the postings (doc<<shift | value) by id.
	off, post []uint32
	shift     uint
	// docOff and refs are each document's ids (refs[docOff[d]:docOff[d+1]],
	// an id being ref>>idShift).
	docOff  []uint32
	refs    []uint32
	idShift uint
}

func (ix *Index) accordFacet() refFacet {
	bi, s := ix.browse, ix.sim
	return refFacet{bi.accCount, bi.accBits, bi.accByCount, bi.accKey, ix.accordName,
		s.accOff, s.accPost, 8, s.docAccOff, refsOf(s.docAccs), 16}
}

func (ix *Index) noteFacet() refFacet {
	bi, s := ix.browse, ix.sim
	return refFacet{bi.noteCount, bi.noteBits, bi.noteByCount, bi.noteKey, ix.noteName,
		s.noteOff, s.notePost, 2, s.docNoteOff, refsOf(s.docNotes), 2}
}

// refsOf is the packed accord or note references as their bits, the
// same memory (read only).
func refsOf[R ~uint32](rs []R) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(rs))), len(rs))
}

// facets counts the facets in mask over the set in w.cand (all: every
// document).
func (ix *Index) facets(mask facetMask, w *browseWork, all bool) *Facets {
	bi := ix.browse
	cand := w.cand
	size := 0
	for _, x := range cand {
		size += bits.OnesCount64(x)
	}
	f := &Facets{}
	for _, name := range FacetNames {
		if !mask.has(name) {
			continue
		}
		switch name {
		case FacetGender:
			f.Gender = bi.fixedCounts(cand, 0, browseGenders)
		case FacetSeason:
			f.Season = bi.fixedCounts(cand, seasonPlace, browseSeasons)
		case FacetTime:
			f.Time = bi.fixedCounts(cand, dayPlace, browseTimes)
		case FacetYear:
			f.Year = bi.yearCounts(cand, size, w.yearCount)
		case FacetAccords:
			f.Accords = ix.accordFacet().top(cand, size, all, bi, w.accCount)
		case FacetNotes:
			f.Notes = ix.noteFacet().top(cand, size, all, bi, w.noteCount)
		}
	}
	return f
}

// fixedCounts counts the set's documents in each bitmap of the values
// from place on.
func (bi *browseIndex) fixedCounts(cand []uint64, place int, values []string) []FacetCount {
	out := make([]FacetCount, len(values))
	for i, v := range values {
		n := 0
		for j, x := range bi.bitmap(place + i) {
			n += bits.OnesCount64(x & cand[j])
		}
		out[i] = FacetCount{Value: v, Count: n}
	}
	return out
}

// yearCounts counts the set's documents by known year. A set of more
// than half the catalogue is counted as the catalogue less its
// complement, so at most half the documents are read.
func (bi *browseIndex) yearCounts(cand []uint64, size int, counts []int32) []FacetCount {
	clear(counts)
	flip, tail := bi.complement(size)
	last := len(cand) - 1
	for i, word := range cand {
		word ^= flip
		if i == last {
			word &= tail
		}
		for ; word != 0; word &= word - 1 {
			counts[bi.yearAt[i*64+bits.TrailingZeros64(word)]]++
		}
	}
	out := []FacetCount{}
	for i, name := range bi.yearNames {
		c := counts[i+1]
		if flip != 0 {
			c = bi.yearTotal[i+1] - c
		}
		if c > 0 {
			out = append(out, FacetCount{Value: name, Count: int(c)})
		}
	}
	return out
}

// complement tells how to read a set of size documents: its own bits
// (flip 0) or, for more than half the catalogue, those of its complement
// (flip all ones, and tail the valid bits of the last word).
func (bi *browseIndex) complement(size int) (flip, tail uint64) {
	tail = ^uint64(0)
	if r := bi.n % 64; r != 0 {
		tail = 1<<r - 1
	}
	if 2*size > bi.n {
		return ^uint64(0), tail
	}
	return 0, tail
}

// top returns the FacetValues ids most common in the set (size
// documents), most first, then by name.
//
// Counting every document's references costs the set's size (or its
// complement's, the smaller) times a perfume's references; counting id by id costs a bitmap's words for a
// common id and its postings for a rare one, but only the ids that can
// still enter the list are counted: ids come most common in the whole
// catalogue first, and once the list is full, an id whose catalogue count
// is below the last one's count in the set cannot enter. The cheaper of
// the two is taken.
func (r refFacet) top(cand []uint64, size int, all bool, bi *browseIndex, counts []int32) []FacetCount {
	best := make([]facetID, 0, FacetValues+1)
	if all {
		for _, id := range r.byCount[:min(FacetValues, len(r.byCount))] {
			if r.counts[id] > 0 {
				best = append(best, facetID{id, r.counts[id]})
			}
		}
		return r.list(best)
	}
	common := 0
	for _, bm := range r.bits {
		if bm != nil {
			common++
		}
	}
	perDoc := len(r.refs) / max(bi.n, 1)
	if min(size, bi.n-size)*(perDoc+1) <= common*bi.words/4+len(r.post)/16 {
		return r.list(r.walk(cand, size, bi, counts, best))
	}
	for _, id := range r.byCount {
		if len(best) == FacetValues && r.counts[id] < best[len(best)-1].count {
			break
		}
		n := int32(0)
		if bm := r.bits[id]; bm != nil {
			for j, x := range bm {
				n += int32(bits.OnesCount64(x & cand[j]))
			}
		} else {
			for _, p := range r.post[r.off[id]:r.off[id+1]] {
				d := p >> r.shift
				n += int32(cand[d/64] >> (d % 64) & 1)
			}
		}
		best = r.insert(best, facetID{id, n})
	}
	return r.list(best)
}

// walk counts every reference of the set's documents (of size; more than
// half the catalogue is counted as the catalogue less its complement)
// and keeps the best.
func (r refFacet) walk(cand []uint64, size int, bi *browseIndex, counts []int32, best []facetID) []facetID {
	clear(counts)
	flip, tail := bi.complement(size)
	last := len(cand) - 1
	for i, word := range cand {
		word ^= flip
		if i == last {
			word &= tail
		}
		for ; word != 0; word &= word - 1 {
			d := i*64 + bits.TrailingZeros64(word)
			for _, ref := range r.refs[r.docOff[d]:r.docOff[d+1]] {
				counts[ref>>r.idShift]++
			}
		}
	}
	for id, n := range counts {
		if flip != 0 {
			n = r.counts[id] - n
		}
		best = r.insert(best, facetID{uint32(id), n})
	}
	return best
}

// facetID is an id and its count in a set.
type facetID struct {
	id    uint32
	count int32
}

// before orders facet values: more perfumes first, then by name.
func (r refFacet) before(a, c facetID) int {
	return cmp.Or(cmp.Compare(c.count, a.count), strings.Compare(r.keys[a.id], r.keys[c.id]))
}

// insert puts v in its place among best (sorted, at most FacetValues
// long) when it belongs there; values with no perfume never do.
func (r refFacet) insert(best []facetID, v facetID) []facetID {
	if v.count == 0 || (len(best) == FacetValues && r.before(v, best[len(best)-1]) >= 0) {
		return best
	}
	at, _ := slices.BinarySearchFunc(best, v, r.before)
	best = slices.Insert(best, at, v)
	return best[:min(len(best), FacetValues)]
}

func (r refFacet) list(best []facetID) []FacetCount {
	out := make([]FacetCount, len(best))
	for i, v := range best {
		out[i] = FacetCount{Value: r.names[v.id], Count: int(v.count)}
	}
	return out
}
