package index

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

// browseIndex is what Browse reads besides the popularity order: a bitmap
// per filter value, the other sorts' orders, each perfume's year and
// rating, bitmaps of the common accords and notes, and each perfume's
// accords and notes for the facet walk: five orders of four bytes a
// perfume, fourteen bytes of year and rating, a bit a perfume for each
// filter value and common accord or note (about 160 of them for the
// bundled catalogue's accords and notes), and two bytes an accord or note
// with eight of offsets (about 41 bytes a perfume).
type browseIndex struct {
	n, words int // documents, and words of a bitmap of them
	// filter is a bitmap per value of the fixed filters, at the places
	// below (genderPlace, seasonPlace, dayPlace, nightPlace): value i's
	// documents are filter[i*words:][:words].
	filter []uint64
	// Orders of every document: by rating, newest, oldest, name.
	byRating, byNewest, byOldest, byName []uint32
	// byRawRating is every document by its rating, highest first (for
	// minRating).
	byRawRating []uint32
	// yearRuns and ratingRuns read runs of byOldest and byRawRating.
	yearRuns, ratingRuns orderRuns
	year                 []uint16  // per document, 0 when unknown
	rating               []float64 // per document
	// years lists the known years, earliest first; yearAt is each
	// document's place in it plus one (0: unknown).
	years  []uint16
	yearAt []uint16
	// yearNames are the years as the year facet writes them.
	yearNames []string
	// yearTotal counts the catalogue's documents by place in years plus
	// one.
	yearTotal []int32
	// accBits and noteBits are presence bitmaps by accord and note id,
	// nil for those on fewer than n/bitmapShare perfumes.
	accBits, noteBits [][]uint64
	// accCount and noteCount count each id's perfumes; accByCount and
	// noteByCount list the ids most common first (then name).
	accCount, noteCount     []int32
	accByCount, noteByCount []uint32
	// accCommon and noteCommon count the ids with a bitmap.
	accCommon, noteCommon int
	accKey, noteKey       []string // per id: its folded name
	// meanRating is the catalogue's mean rating of rated perfumes, the
	// prior of the rating sort's weighted rating.
	meanRating float64
	pool       sync.Pool // *browseWork
	// refs16 (or, when a fixedLayout row's places do not fit 16 bits,
	// refs32) is every document's accords and notes, the stream a facet
	// walk reads (browse_walk.go).
	refs16 *facetRefs[uint16]
	refs32 *facetRefs[uint32]
	// cellCounts holds every facet's counts per cell of the fixed
	// filters (browse_fixed.go), fixedLayout().width counts a cell.
	cellCounts []int32
	// memo keeps recent sets' facets.
	memo facetMemo
}

// prior is the rating sort's prior (see SortRating).
func (bi *browseIndex) prior() float64 { return bi.meanRating }

// bitmapShare is the least share of the catalogue (its inverse) an accord
// or note must be on for Browse to keep its bitmap: a rarer one's
// postings are cheaper to read than a bitmap.
const bitmapShare = 64

// Places of the fixed filters' bitmaps in browseIndex.filter.
const (
	seasonPlace = 3 // + seasonIndex
	dayPlace    = 7
	nightPlace  = 8
	filterBits  = 9
)

// The values of the fixed filters, in the order of their places.
var (
	browseGenders = []string{string(catalog.Masculine), string(catalog.Feminine), string(catalog.Unisex)}
	browseSeasons = []string{"winter", "spring", "summer", "fall"}
	browseTimes   = []string{"day", "night"}
)

// genderPlace is a gender's place in browseIndex.filter, -1 if unknown.
func genderPlace(g catalog.Gender) int {
	for i, s := range browseGenders {
		if strings.EqualFold(string(g), s) {
			return i
		}
	}
	return -1
}

// browseWork is the working memory of one Browse, kept for the next.
type browseWork struct {
	cand, tmp []uint64
	// row is a fixedLayout row: a walk's counts or a sum of cells.
	row []int32
}

func (bi *browseIndex) work() *browseWork {
	if w, ok := bi.pool.Get().(*browseWork); ok {
		return w
	}
	return &browseWork{
		cand: make([]uint64, bi.words), tmp: make([]uint64, bi.words),
		row: make([]int32, bi.fixedLayout().width),
	}
}

// bitmap returns value i's filter bitmap.
func (bi *browseIndex) bitmap(i int) []uint64 { return bi.filter[i*bi.words:][:bi.words] }

// orderOf returns the documents in the order of a sort.
func (bi *browseIndex) orderOf(ix *Index, sort string) []uint32 {
	switch sort {
	case SortRating:
		return bi.byRating
	case SortNewest:
		return bi.byNewest
	case SortOldest:
		return bi.byOldest
	case SortName:
		return bi.byName
	}
	return ix.order
}

// buildBrowse makes the browseIndex. It runs beside the text index and
// the similarity build, after buildOrder, and reads what add, derive and
// foldNames made.
func (b *builder) buildBrowse() {
	ix := b.ix
	n := len(ix.entries)
	bi := &browseIndex{n: n, words: (n + 63) / 64}
	bi.filter = make([]uint64, filterBits*bi.words)
	bi.year, bi.rating = make([]uint16, n), make([]float64, n)
	sum, rated := 0.0, 0
	for d := range ix.entries {
		e := &ix.entries[d]
		set := func(place int) { bi.filter[place*bi.words+d/64] |= 1 << (d % 64) }
		if g := genderPlace(e.Gender()); g >= 0 {
			set(g)
		}
		for s := range 4 {
			if ix.has[d]&(1<<s) != 0 {
				set(seasonPlace + s)
			}
		}
		day, night := e.DayNight.Day, e.DayNight.Night
		if day > 0 && day >= night {
			set(dayPlace)
		}
		if night > 0 && night >= day {
			set(nightPlace)
		}
		bi.year[d] = uint16(min(max(e.Year, 0), 0xFFFF))
		bi.rating[d] = e.Rating
		if e.RatingCount > 0 {
			sum, rated = sum+e.Rating, rated+1
		}
	}
	bi.buildYears()
	if rated > 0 {
		bi.meanRating = sum / float64(rated)
	}
	prior := bi.meanRating
	weighted := make([]float64, n)
	for d := range ix.entries {
		weighted[d] = ranking.WeightedRating(ix.entries[d].Rating, ix.entries[d].RatingCount, prior)
	}
	pos := ix.popPos
	bi.byRating = sortedDocs(ix.order, func(x, y uint32) int { return cmp.Compare(weighted[y], weighted[x]) })
	bi.byNewest = sortedDocs(ix.order, func(x, y uint32) int { return yearOrder(bi.year[x], bi.year[y], true) })
	bi.byOldest = sortedDocs(ix.order, func(x, y uint32) int { return yearOrder(bi.year[x], bi.year[y], false) })
	bi.byRawRating = sortedDocs(ix.order, func(x, y uint32) int { return cmp.Compare(bi.rating[y], bi.rating[x]) })
	bi.yearRuns = newOrderRuns(bi.byOldest, bi.words)
	bi.ratingRuns = newOrderRuns(bi.byRawRating, bi.words)
	fold := b.nameFold
	bi.byName = sortedDocs(ix.order, func(x, y uint32) int {
		return cmp.Or(strings.Compare(fold[x], fold[y]), strings.Compare(ix.entries[x].Name(), ix.entries[y].Name()), cmp.Compare(pos[x], pos[y]))
	})
	bi.accCount, bi.accBits = refBitmaps(n, b.accords.groups(), b.accOff, func(i uint32) uint32 { return b.docAccs[i].id() })
	bi.noteCount, bi.noteBits = refBitmaps(n, b.notes.groups(), b.noteOff, func(i uint32) uint32 { return b.docNotes[i].id() })
	bi.accKey, bi.noteKey = b.accords.keys, b.notes.keys
	bi.accByCount = byCount(bi.accCount, b.accords.keys)
	bi.noteByCount = byCount(bi.noteCount, b.notes.keys)
	bi.accCommon, bi.noteCommon = countCommon(bi.accBits), countCommon(bi.noteBits)
	b.buildFixedCounts(bi)
	b.buildFacetRefs(bi)
	ix.browse = bi
}

// yearOrder compares two launch years for the newest or the oldest
// sort, unknown (0) last either way.
func yearOrder(x, y uint16, newest bool) int {
	switch {
	case x == y:
		return 0
	case x == 0:
		return 1
	case y == 0:
		return -1
	case newest:
		return cmp.Compare(y, x)
	}
	return cmp.Compare(x, y)
}

// sortedDocs sorts the popularity order stably by cmp, so ties stay most
// rated first.
func sortedDocs(order []uint32, cmp func(x, y uint32) int) []uint32 {
	out := slices.Clone(order)
	slices.SortStableFunc(out, cmp)
	return out
}

// buildYears lists the known years and places each document's in it.
func (bi *browseIndex) buildYears() {
	seen := map[uint16]bool{}
	for _, y := range bi.year {
		if y != 0 && !seen[y] {
			seen[y] = true
			bi.years = append(bi.years, y)
		}
	}
	slices.Sort(bi.years)
	at := make(map[uint16]uint16, len(bi.years))
	for i, y := range bi.years {
		at[y] = uint16(i + 1)
		bi.yearNames = append(bi.yearNames, strconv.Itoa(int(y)))
	}
	bi.yearAt = make([]uint16, len(bi.year))
	bi.yearTotal = make([]int32, len(bi.years)+1)
	for d, y := range bi.year {
		bi.yearAt[d] = at[y]
		bi.yearTotal[at[y]]++
	}
}

// refBitmaps counts the perfumes of each of ids accords or notes (each
// document refers to one at most once; refs off[d]:off[d+1] are
// document d's, id(i) the id of ref i) and makes the presence bitmaps of
// the common ones.
func refBitmaps(n, ids int, off []uint32, id func(i uint32) uint32) ([]int32, [][]uint64) {
	counts := make([]int32, ids)
	for i := range off[n] {
		counts[id(i)]++
	}
	words := (n + 63) / 64
	bms := make([][]uint64, ids)
	for i, c := range counts {
		if c > 0 && int(c) >= n/bitmapShare {
			bms[i] = make([]uint64, words)
		}
	}
	for d := range n {
		for i := off[d]; i < off[d+1]; i++ {
			if bm := bms[id(i)]; bm != nil {
				bm[d/64] |= 1 << (d % 64)
			}
		}
	}
	return counts, bms
}

// countCommon counts the ids with a bitmap.
func countCommon(bms [][]uint64) int {
	n := 0
	for _, bm := range bms {
		if bm != nil {
			n++
		}
	}
	return n
}

// byCount lists ids by count, most first, then key (the folded name).
func byCount(counts []int32, names []string) []uint32 {
	out := make([]uint32, len(counts))
	for i := range out {
		out[i] = uint32(i)
	}
	slices.SortFunc(out, func(a, c uint32) int {
		return cmp.Or(cmp.Compare(counts[c], counts[a]), strings.Compare(names[a], names[c]))
	})
	return out
}

// filterSet fills w.cand with the documents passing f's filters (the
// brand's included) and reports whether that is every document.
func (ix *Index) filterSet(f *browseFilter, w *browseWork) bool {
	bi := ix.browse
	cand, tmp := w.cand, w.tmp
	all := true
	and := func(bm []uint64) {
		if all {
			copy(cand, bm)
			all = false
			return
		}
		for i, x := range bm {
			cand[i] &= x
		}
	}
	if f.genders != 0 {
		clear(tmp)
		for g := f.genders; g != 0; g &= g - 1 {
			for i, x := range bi.bitmap(bits.TrailingZeros8(g)) {
				tmp[i] |= x
			}
		}
		and(tmp)
	}
	if f.season >= 0 {
		and(bi.bitmap(f.season))
	}
	if f.time >= 0 {
		and(bi.bitmap(f.time))
	}
	if f.brand >= 0 {
		clear(tmp)
		for _, d := range ix.brands[f.brand].docs {
			tmp[d/64] |= 1 << (d % 64)
		}
		and(tmp)
	}
	if f.perfumer >= 0 {
		clear(tmp)
		for _, d := range ix.perfumers[f.perfumer].docs {
			tmp[d/64] |= 1 << (d % 64)
		}
		and(tmp)
	}
	for _, id := range f.accords {
		and(ix.presence(bi.accBits[id], ix.sim.accPost[ix.sim.accOff[id]:ix.sim.accOff[id+1]], 8, tmp))
	}
	for _, id := range f.notes {
		and(ix.presence(bi.noteBits[id], ix.sim.notePost[ix.sim.noteOff[id]:ix.sim.noteOff[id+1]], 2, tmp))
	}
	if all {
		bi.fillAll(cand)
	}
	excluded := false
	for _, id := range f.notAcc {
		excluded = true
		andNot(cand, bi.accBits[id], ix.sim.accPost[ix.sim.accOff[id]:ix.sim.accOff[id+1]], 8)
	}
	for _, id := range f.notNot {
		excluded = true
		andNot(cand, bi.noteBits[id], ix.sim.notePost[ix.sim.noteOff[id]:ix.sim.noteOff[id+1]], 2)
	}
	if !f.years.Any() || f.minRating > 0 {
		bi.keepScalars(cand, tmp, f.years, f.minRating)
		return false
	}
	return all && !excluded
}

// fillAll sets the bit of every document.
func (bi *browseIndex) fillAll(cand []uint64) {
	for i := range cand {
		cand[i] = ^uint64(0)
	}
	if r := bi.n % 64; r != 0 {
		cand[len(cand)-1] = 1<<r - 1
	}
}

// presence returns an accord's or note's bitmap: its own when kept, else
// made in tmp from its postings (doc<<shift | value).
func (ix *Index) presence(bm []uint64, post []uint32, shift uint, tmp []uint64) []uint64 {
	if bm != nil {
		return bm
	}
	clear(tmp)
	for _, p := range post {
		d := p >> shift
		tmp[d/64] |= 1 << (d % 64)
	}
	return tmp
}

// andNot clears from cand the documents of an accord or note.
func andNot(cand, bm []uint64, post []uint32, shift uint) {
	if bm != nil {
		for i, x := range bm {
			cand[i] &^= x
		}
		return
	}
	for _, p := range post {
		d := p >> shift
		cand[d/64] &^= 1 << (d % 64)
	}
}

// keepScalars keeps in cand the documents within the years and rated at
// least min. Each is a range of a sorted order (byOldest by year, unknown
// last; byRawRating, highest first), so the documents passing are a run
// of it, read through the order's prefix bitmaps (browse_runs.go).
func (bi *browseIndex) keepScalars(cand, tmp []uint64, years YearRange, minRating float64) {
	if !years.Any() {
		known := sort.Search(bi.n, func(i int) bool { return bi.year[bi.byOldest[i]] == 0 })
		lo, hi := 0, known
		if years.From != 0 {
			lo = sort.Search(known, func(i int) bool { return int(bi.year[bi.byOldest[i]]) >= years.From })
		}
		if years.To != 0 {
			hi = sort.Search(known, func(i int) bool { return int(bi.year[bi.byOldest[i]]) > years.To })
		}
		bi.yearRuns.keep(cand, tmp, lo, max(lo, hi))
	}
	if minRating > 0 {
		k := sort.Search(bi.n, func(i int) bool { return bi.rating[bi.byRawRating[i]] < minRating })
		bi.ratingRuns.keep(cand, tmp, 0, k)
	}
}
