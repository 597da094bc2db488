package index

import (
	"math"
	"math/bits"
)

// A set's accords, notes and years are counted by walking its documents
// (the accords and notes when that is cheaper than a bitmap per value,
// see refFacet.walkCheaper), and a walk reads each document's accords and
// notes from one stream, one after the other, as places in a fixedLayout
// row, and its year's place from yearAt. One offset a document and two
// bytes a reference keep the walk on as few cache lines as a document
// allows: a set's documents lie scattered over the catalogue, and a walk
// costs what it waits for memory, not what it adds.

// facetRefs is every document's stream: document d's accords are
// refs[off[d]:mid[d]] and its notes refs[mid[d]:off[d+1]]. R is uint16
// when a row's places fit in it (any catalogue of fewer than 65,000 or
// so accords, notes and years), else uint32.
type facetRefs[R uint16 | uint32] struct {
	refs     []R
	off, mid []uint32
}

// newFacetRefs makes the stream from the builder's references.
func newFacetRefs[R uint16 | uint32](b *builder, bi *browseIndex) *facetRefs[R] {
	lay := bi.fixedLayout()
	n := bi.n
	fr := &facetRefs[R]{
		refs: make([]R, 0, len(b.docAccs)+len(b.docNotes)),
		off:  make([]uint32, n+1), mid: make([]uint32, n),
	}
	for d := range n {
		for _, r := range b.docAccs[b.accOff[d]:b.accOff[d+1]] {
			fr.refs = append(fr.refs, R(lay.acc+int(r.id())))
		}
		fr.mid[d] = uint32(len(fr.refs))
		for _, r := range b.docNotes[b.noteOff[d]:b.noteOff[d+1]] {
			fr.refs = append(fr.refs, R(lay.note+int(r.id())))
		}
		fr.off[d+1] = uint32(len(fr.refs))
	}
	return fr
}

// buildFacetRefs makes the stream of the narrowest type that holds a
// row's places.
func (b *builder) buildFacetRefs(bi *browseIndex) {
	if bi.fixedLayout().width <= math.MaxUint16+1 {
		bi.refs16 = newFacetRefs[uint16](b, bi)
	} else {
		bi.refs32 = newFacetRefs[uint32](b, bi)
	}
}

// walkParts says which of a document's references a walk counts.
type walkParts struct{ accords, notes, year bool }

// walk counts into row (a fixedLayout row, cleared first) the parts of
// every document of the set in cand, or, for a set of more than half
// the catalogue, of its complement (flip all ones, tail the valid bits of
// the last word): the caller takes those from the catalogue's counts.
func (bi *browseIndex) walk(cand []uint64, flip, tail uint64, parts walkParts, row []int32) {
	clear(row)
	if bi.refs16 != nil {
		walkRefs(bi.refs16, bi.yearAt, cand, flip, tail, parts, row, bi.fixedLayout())
	} else {
		walkRefs(bi.refs32, bi.yearAt, cand, flip, tail, parts, row, bi.fixedLayout())
	}
}

func walkRefs[R uint16 | uint32](fr *facetRefs[R], yearAt []uint16, cand []uint64, flip, tail uint64, parts walkParts, row []int32, lay fixedLayout) {
	// A document's references asked are refs[from[d]:to[d]]: the accords
	// from off, else the notes from mid; to the notes' end, else the
	// accords' (mid).
	from, to := fr.off, fr.off[1:]
	if !parts.accords {
		from = fr.mid
	}
	if !parts.notes {
		to = fr.mid
	}
	refs, years := fr.refs, row[lay.year:]
	anyRefs := parts.accords || parts.notes
	last := len(cand) - 1
	for i, word := range cand {
		word ^= flip
		if i == last {
			word &= tail
		}
		for ; word != 0; word &= word - 1 {
			d := i*64 + bits.TrailingZeros64(word)
			if anyRefs {
				for _, r := range refs[from[d]:to[d]] {
					row[r]++
				}
			}
			if parts.year {
				years[yearAt[d]]++
			}
		}
	}
}
