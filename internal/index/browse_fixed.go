package index

import "math/bits"

// Sets made of the fixed filters alone (gender, season, time) are common
// (the search page's first choices, the filter panel's counts of a group
// without its own choice) and few: every facet of each is counted when
// the index is built, per cell of one gender (or none), one season or
// none and one time or none, so such a set's facets are a sum of a few
// cells' counts instead of a walk of most of the catalogue.

// Cells of cellCounts: a document is in the cell of its gender (the
// fourth: none known) for "no season" and each season it has, crossed
// with "no time" and each time it has.
const (
	cellGenders = 4 // masculine, feminine, unisex, unknown
	cellSeasons = 5 // none, then seasonIndex + 1
	cellTimes   = 3 // none, day, night
	fixedCells  = cellGenders * cellSeasons * cellTimes
)

// fixedCell is the place of a cell in cellCounts.
func fixedCell(g, s, t int) int { return (g*cellSeasons+s)*cellTimes + t }

// fixedLayout is where a cell's counts lie in its row of cellCounts:
// filterBits fixed values, then the accords by id, the notes by id, and
// the known years (by place in years plus one).
type fixedLayout struct{ acc, note, year, width int }

func (bi *browseIndex) fixedLayout() fixedLayout {
	acc := filterBits
	note := acc + len(bi.accCount)
	year := note + len(bi.noteCount)
	return fixedLayout{acc, note, year, year + len(bi.years) + 1}
}

// buildFixedCounts counts every facet of every cell. It runs after the
// filter bitmaps, the years and the accord and note counts are made.
func (b *builder) buildFixedCounts(bi *browseIndex) {
	lay := bi.fixedLayout()
	counts := make([]int32, fixedCells*lay.width)
	var cells [cellSeasons * cellTimes]int
	for d := range bi.n {
		word, bit := d/64, uint64(1)<<(d%64)
		var places uint16
		for p := range filterBits {
			if bi.filter[p*bi.words+word]&bit != 0 {
				places |= 1 << p
			}
		}
		g := cellGenders - 1
		if gs := places & 7; gs != 0 {
			g = bits.TrailingZeros16(gs)
		}
		n := 0
		for s := range cellSeasons {
			if s > 0 && places&(1<<(seasonPlace+s-1)) == 0 {
				continue
			}
			for t := range cellTimes {
				if t > 0 && places&(1<<(dayPlace+t-1)) == 0 {
					continue
				}
				cells[n] = fixedCell(g, s, t)
				n++
			}
		}
		for _, c := range cells[:n] {
			row := counts[c*lay.width:][:lay.width]
			for p := places; p != 0; p &= p - 1 {
				row[bits.TrailingZeros16(p)]++
			}
			for i := b.accOff[d]; i < b.accOff[d+1]; i++ {
				row[lay.acc+int(b.docAccs[i].id())]++
			}
			for i := b.noteOff[d]; i < b.noteOff[d+1]; i++ {
				row[lay.note+int(b.docNotes[i].id())]++
			}
			row[lay.year+int(bi.yearAt[d])]++
		}
	}
	bi.cellCounts = counts
}

// fixedOnly reports whether f's set is made of the fixed filters alone
// (no text, which the caller knows), and its cells' seasons and times.
func (f *browseFilter) fixedOnly() (s, t int, ok bool) {
	if len(f.accords)+len(f.notes)+len(f.notAcc)+len(f.notNot) > 0 || !f.years.Any() || f.minRating > 0 || f.brand != -1 || f.perfumer != -1 {
		return 0, 0, false
	}
	if f.season >= 0 {
		s = f.season - seasonPlace + 1
	}
	if f.time >= 0 {
		t = f.time - dayPlace + 1
	}
	return s, t, true
}

// fixedFacets is the facets in mask of a set of fixed filters alone: the
// sum of its cells' counts (every gender's, the unknown's included, when
// no gender is chosen).
func (ix *Index) fixedFacets(f *browseFilter, s, t int, mask facetMask, sum []int32) *Facets {
	bi := ix.browse
	lay := bi.fixedLayout()
	sum = sum[:lay.width]
	clear(sum)
	for g := range cellGenders {
		if f.genders != 0 && (g == cellGenders-1 || f.genders&(1<<g) == 0) {
			continue
		}
		c := fixedCell(g, s, t)
		for i, n := range bi.cellCounts[c*lay.width:][:lay.width] {
			sum[i] += n
		}
	}
	out := &Facets{}
	fixed := func(place int, values []string) []FacetCount {
		l := make([]FacetCount, len(values))
		for i, v := range values {
			l[i] = FacetCount{Value: v, Count: int(sum[place+i])}
		}
		return l
	}
	for _, name := range FacetNames {
		if !mask.has(name) {
			continue
		}
		switch name {
		case FacetGender:
			out.Gender = fixed(0, browseGenders)
		case FacetSeason:
			out.Season = fixed(seasonPlace, browseSeasons)
		case FacetTime:
			out.Time = fixed(dayPlace, browseTimes)
		case FacetAccords:
			out.Accords = ix.accordFacet().top(sum[lay.acc:lay.note])
		case FacetNotes:
			out.Notes = ix.noteFacet().top(sum[lay.note:lay.year])
		case FacetYear:
			out.Year = bi.yearList(sum[lay.year:])
		}
	}
	return out
}
