package index

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
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
	// common is how many ids have a bitmap.
	common int
}

func (ix *Index) accordFacet() refFacet {
	bi, s := ix.browse, ix.sim
	return refFacet{bi.accCount, bi.accBits, bi.accByCount, bi.accKey, ix.accordName,
		s.accOff, s.accPost, 8, bi.accCommon}
}

func (ix *Index) noteFacet() refFacet {
	bi, s := ix.browse, ix.sim
	return refFacet{bi.noteCount, bi.noteBits, bi.noteByCount, bi.noteKey, ix.noteName,
		s.noteOff, s.notePost, 2, bi.noteCommon}
}

// facets counts the facets in mask over the set in w.cand. Gender,
// season and time are a popcount of their bitmaps against the set; the
// year, and the accords and notes when walking the set is the cheaper
// way, come from one walk of the set's documents (browse_walk.go), the
// other accords and notes from their bitmaps and postings.
func (ix *Index) facets(mask facetMask, w *browseWork) *Facets {
	bi := ix.browse
	cand := w.cand
	size := 0
	for _, x := range cand {
		size += bits.OnesCount64(x)
	}
	flip, tail := bi.complement(size)
	read := min(size, bi.n-size)
	acc, note := ix.accordFacet(), ix.noteFacet()
	parts := walkParts{
		accords: mask.has(FacetAccords) && acc.walkCheaper(read, bi),
		notes:   mask.has(FacetNotes) && note.walkCheaper(read, bi),
		year:    mask.has(FacetYear),
	}
	lay := bi.fixedLayout()
	row := w.row
	if parts != (walkParts{}) {
		bi.walk(cand, flip, tail, parts, row)
		if flip != 0 {
			bi.uncomplement(row, parts)
		}
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
			f.Year = bi.yearList(row[lay.year:])
		case FacetAccords:
			if parts.accords {
				f.Accords = acc.top(row[lay.acc:lay.note])
			} else {
				f.Accords = acc.topByBitmaps(cand)
			}
		case FacetNotes:
			if parts.notes {
				f.Notes = note.top(row[lay.note:lay.year])
			} else {
				f.Notes = note.topByBitmaps(cand)
			}
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

// uncomplement turns the walked parts of row, counted over a set's
// complement, into the set's counts: the catalogue's less the
// complement's.
func (bi *browseIndex) uncomplement(row []int32, parts walkParts) {
	lay := bi.fixedLayout()
	less := func(counts, total []int32) {
		for i, t := range total {
			counts[i] = t - counts[i]
		}
	}
	if parts.accords {
		less(row[lay.acc:lay.note], bi.accCount)
	}
	if parts.notes {
		less(row[lay.note:lay.year], bi.noteCount)
	}
	if parts.year {
		less(row[lay.year:], bi.yearTotal)
	}
}

// yearList is the year facet of a set's counts by place in years plus
// one (counts[0], the unknown year's, unread): every known year with
// perfumes, earliest first.
func (bi *browseIndex) yearList(counts []int32) []FacetCount {
	out := []FacetCount{}
	for i, name := range bi.yearNames {
		if c := counts[i+1]; c > 0 {
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

// walkCheaper reports whether counting the ids of a set by walking read
// documents (the set's or its complement's) costs less than counting id
// by id: a walk costs a perfume's references for each document, id by id
// a bitmap's words for a common id and its postings for a rare one
// (topByBitmaps reads fewer when the list fills early, which this
// leaves out).
func (r refFacet) walkCheaper(read int, bi *browseIndex) bool {
	perDoc := len(r.post) / max(bi.n, 1)
	return read*(perDoc+1) <= r.common*bi.words/4+len(r.post)/16
}

// top returns the FacetValues ids most common in a set, most first, then
// by name, from the set's count of every id. Ids come most common in the
// whole catalogue first, and once the list is full, an id whose
// catalogue count is below the last one's count in the set cannot enter.
func (r refFacet) top(counts []int32) []FacetCount {
	best := make([]facetID, 0, FacetValues+1)
	for _, id := range r.byCount {
		if len(best) == FacetValues && r.counts[id] < best[len(best)-1].count {
			break
		}
		best = r.insert(best, facetID{id, counts[id]})
	}
	return r.list(best)
}

// topByBitmaps is top of the set in cand counted id by id: a common id's
// bitmap against the set, a rare one's postings, in the same order and
// with the same stop, so only the ids that can still enter are counted.
func (r refFacet) topByBitmaps(cand []uint64) []FacetCount {
	best := make([]facetID, 0, FacetValues+1)
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
