package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/search"
)

// builder holds what a Builder computes on the way to an Index.
type builder struct {
	ix       *Index
	opts     Options
	tab      *tables
	text     textWriter
	words    map[string]uint32 // tab.words' ids
	brands   *namer
	pers     *namer
	notes    *namer
	accords  *namer
	persOf   [][]uint32 // document → perfumer groups
	nameFold []string   // document → folded name
	docNotes []noteRef  // per document, noteOff[doc]:noteOff[doc+1]
	noteOff  []uint32
	docAccs  []accRef // per document, accOff[doc]:accOff[doc+1]
	accOff   []uint32
	// Brands by the group ids add gave: display names, search
	// words, alias terms; each document's group; each group's list position.
	brandNames []string
	brandWords [][]string
	brandExtra [][]string
	brandOld   []uint32
	brandPos   []uint32
}

// noteRef is a note of a perfume packed in 32 bits, as there are millions
// of them in a large catalogue: its note id and best pyramid layer.
type noteRef uint32

func newNoteRef(id uint32, layer uint8) noteRef { return noteRef(id<<2 | uint32(layer)) }
func (r noteRef) id() uint32                    { return uint32(r) >> 2 }
func (r noteRef) layer() uint8                  { return uint8(r & 3) }

// accRef is an accord of a perfume packed in 32 bits: its accord id (below
// maxAccords), strength 0–100 and position in the perfume's Accords.
type accRef uint32

// maxAccords bounds the distinct accords similarity knows; accords past it
// are listed but ignored by similarity and match.
const maxAccords = 1 << 16

func newAccRef(id uint32, strength, pos uint8) accRef {
	return accRef(id<<16 | uint32(strength)<<8 | uint32(pos))
}
func (r accRef) id() uint32      { return uint32(r) >> 16 }
func (r accRef) strength() uint8 { return uint8(r >> 8) }
func (r accRef) pos() uint8      { return uint8(r) }

// Pyramid layers, as stored in noteRef (the order of addNotes' layers and
// of layerWeight).
const (
	layerTop = iota
	layerMiddle
	layerBase
	layerUnplaced
)

// Build indexes ps (see Builder). The index copies what it keeps and
// holds no reference to ps afterwards.
func Build(ps []catalog.Perfume, opts Options) *Index {
	bl := NewBuilder(opts, len(ps))
	for i := range ps {
		bl.Add(&ps[i])
	}
	return bl.Index()
}

// A Builder builds an Index from perfumes added one at a time. Add copies
// what the index keeps (see Entry), so a store can decode each perfume into
// the same memory and a catalogue is never held twice (a reload would
// otherwise hold the loaded perfumes beside both indexes, the old and the
// new, at the moment of the swap). Duplicate slugs or ids keep the first perfume for lookups; every
// perfume is still listed and searched. A Builder is not safe for
// concurrent use.
type Builder struct{ b *builder }

// NewBuilder starts an index of about sizeHint perfumes (0 if unknown).
func NewBuilder(opts Options, sizeHint int) *Builder {
	n := max(sizeHint, 0)
	ix := &Index{lx: search.DefaultLexicon().WithAliases(opts.Aliases), entries: make([]Entry, 0, n)}
	ix.brandOf = make([]uint32, 0, n)
	b := &builder{
		ix: ix, opts: opts, tab: &tables{}, words: map[string]uint32{},
		brands: newNamer(slugKey), pers: newNamer(slugKey),
		notes: newNamer(search.Fold), accords: newNamer(search.Fold),
		persOf: make([][]uint32, 0, n), noteOff: make([]uint32, 1, n+1), accOff: make([]uint32, 1, n+1),
	}
	return &Builder{b}
}

// Add adds a perfume. Nothing of p is kept: the caller may change or reuse
// it (its strings and lists included) once Add returns.
func (bl *Builder) Add(p *catalog.Perfume) { bl.b.add(p) }

// Index finishes the index. Independent parts are built side by side: the
// text index, the similarity postings and the ordered lists. The Builder
// must not be used afterwards.
func (bl *Builder) Index() *Index {
	b := bl.b
	bl.b = nil
	b.finishEntries()
	ix := b.ix
	b.derive()
	b.foldNames()
	b.prepareBrands()
	var wg sync.WaitGroup
	wg.Go(b.buildSimilarity)
	b.buildOrder() // the text index numbers its documents by it
	wg.Go(b.buildRenown)
	wg.Go(b.buildText)
	wg.Go(b.buildBrowse)
	b.buildLists()
	b.buildListText()
	wg.Wait()
	b.nameFold = nil
	ix.neighbours = &neighbours{chunks: make([]atomic.Pointer[nbChunk], (len(ix.entries)+NeighbourChunk-1)/NeighbourChunk)}
	return ix
}

// add copies one perfume into a new entry and the tables: its own strings
// into text blocks, its repeated ones interned, its brand, perfumers, notes
// and accords numbered.
func (b *builder) add(p *catalog.Perfume) {
	ix, tab := b.ix, b.tab
	ix.entries = append(ix.entries, Entry{
		ID: p.ID, Seq: p.Seq, Year: p.Year, Rating: p.Rating, RatingCount: p.RatingCount,
		Longevity: p.Longevity, Sillage: p.Sillage, Seasons: p.Seasons, DayNight: p.DayNight,
		tab: tab,
	})
	e := &ix.entries[len(ix.entries)-1]
	var refs [3]textRef
	e.block, refs = b.text.add(p.Slug, p.Name, p.Description)
	e.slug, e.name, e.descr = refs[0], refs[1], refs[2]
	sp, g := b.brands.spelling(p.Brand, p.BrandSlug)
	e.brand, e.brandGroup = sp, g
	ix.brandOf = append(ix.brandOf, g)
	e.gender, e.tier = b.word(string(p.Gender)), b.word(string(p.PriceTier))
	e.conc, e.family = b.word(p.Concentration), b.word(p.Family)
	e.persAt, e.nPers = uint32(len(tab.perfumers)), uint32(len(p.Perfumers))
	var groups []uint32
	for _, name := range p.Perfumers {
		sp, g := b.pers.spelling(name, "")
		tab.perfumers = append(tab.perfumers, sp)
		groups = append(groups, g)
	}
	b.persOf = append(b.persOf, groups)
	b.addNotes(e, p)
	b.addAccords(e, p)
}

// word returns the id of a repeated string in tab.words, adding a copy of
// it when new.
func (b *builder) word(s string) uint32 {
	id, ok := b.words[s]
	if !ok {
		id = uint32(len(b.tab.words))
		s = strings.Clone(s)
		b.words[s] = id
		b.tab.words = append(b.tab.words, s)
	}
	return id
}

// finishEntries closes the tables once every perfume is added and fills
// the slug and id lookups.
func (b *builder) finishEntries() {
	ix, tab := b.ix, b.tab
	tab.text = b.text.done()
	tab.noteSpell, tab.accordSpell = b.notes.str, b.accords.str
	tab.perfumerSpell, tab.brandSpell, tab.brandKey = b.pers.str, b.brands.str, b.brands.keys
	b.words = nil
	ix.bySlug = make(map[string]uint32, len(ix.entries))
	ix.byID = make(map[int64]uint32, len(ix.entries))
	isConc, isGender := make([]bool, len(tab.words)), make([]bool, len(tab.words))
	for i := range ix.entries {
		e := &ix.entries[i]
		doc := uint32(i)
		if !isConc[e.conc] {
			isConc[e.conc] = true
			ix.concWords = append(ix.concWords, attrWord{e.conc, tab.words[e.conc]})
		}
		if !isGender[e.gender] {
			isGender[e.gender] = true
			ix.genderWords = append(ix.genderWords, attrWord{e.gender, tab.words[e.gender]})
		}
		if _, dup := ix.bySlug[e.Slug()]; !dup {
			ix.bySlug[e.Slug()] = doc
		}
		if _, dup := ix.byID[e.ID]; !dup {
			ix.byID[e.ID] = doc
		}
	}
}

// addNotes interns a perfume's notes, keeping them by layer, and records
// each distinct note once for similarity, with the heaviest layer it
// appears in (base > middle = unplaced > top).
func (b *builder) addNotes(e *Entry, p *catalog.Perfume) {
	tab := b.tab
	start := len(b.docNotes)
	e.noteAt = uint32(len(tab.notes))
	layers := [4][]string{layerTop: p.Notes.Top, layerMiddle: p.Notes.Middle, layerBase: p.Notes.Base, layerUnplaced: p.Notes.Unplaced}
	for layer, names := range layers {
		e.nNotes[layer] = uint32(len(names))
		for _, name := range names {
			sp, id := b.notes.spelling(name, "")
			tab.notes = append(tab.notes, sp)
			if k := slices.IndexFunc(b.docNotes[start:], func(r noteRef) bool { return r.id() == id }); k >= 0 {
				r := b.docNotes[start+k]
				b.docNotes[start+k] = newNoteRef(id, heavier(r.layer(), uint8(layer)))
				continue
			}
			b.docNotes = append(b.docNotes, newNoteRef(id, uint8(layer)))
		}
	}
	b.noteOff = append(b.noteOff, uint32(len(b.docNotes)))
}

// heavier returns the layer of the larger similarity weight.
func heavier(a, c uint8) uint8 {
	if layerWeight(c) > layerWeight(a) {
		return c
	}
	return a
}

// addAccords interns a perfume's accords, keeping them all in order; for
// similarity a repeated accord keeps its strongest strength, and only the
// first 256 count.
func (b *builder) addAccords(e *Entry, p *catalog.Perfume) {
	tab := b.tab
	start := len(b.docAccs)
	e.accAt, e.nAcc = uint32(len(tab.accords)), uint32(len(p.Accords))
	for j, a := range p.Accords {
		sp, id := b.accords.spelling(a.Name, "")
		tab.accords = append(tab.accords, sp)
		tab.strengths = append(tab.strengths, a.Strength)
		if j >= 256 || id >= maxAccords {
			continue
		}
		s := uint8(min(max(a.Strength+0.5, 0), 100))
		if k := slices.IndexFunc(b.docAccs[start:], func(r accRef) bool { return r.id() == id }); k >= 0 {
			if r := b.docAccs[start+k]; s > r.strength() {
				b.docAccs[start+k] = newAccRef(id, s, r.pos())
			}
			continue
		}
		b.docAccs = append(b.docAccs, newAccRef(id, s, uint8(j)))
	}
	b.accOff = append(b.accOff, uint32(len(b.docAccs)))
}

// derive fills each entry's popularity and each document's match profile.
func (b *builder) derive() {
	ix := b.ix
	n := len(ix.entries)
	ix.profiles = make([]profile, n)
	ix.has = make([]uint16, n)
	counts := make([]int, n)
	for i := range ix.entries {
		counts[i] = ix.entries[i].RatingCount
	}
	slices.Sort(counts)
	for i := range ix.entries {
		e := &ix.entries[i]
		e.Popularity = popularity(counts, e.RatingCount)
		ix.profiles[i] = makeProfile(e)
		ix.has[i] = ix.profiles[i].has
	}
}

func (b *builder) color(accord string) string {
	if b.opts.AccordColor != nil {
		if c := b.opts.AccordColor(accord); c != "" {
			return c
		}
	}
	return DefaultAccordColor
}

// rank returns the named shares, highest first (ties keep the given
// order), rounded to one decimal.
func rank(names []string, values ...float64) []Ranked {
	out := make([]Ranked, len(values))
	for i, v := range values {
		out[i] = Ranked{Name: names[i], Score: ranking.Round1(v)}
	}
	slices.SortStableFunc(out, func(a, c Ranked) int { return cmp.Compare(c.Score, a.Score) })
	return out
}

// popularity places a rating count among all of them (sorted ascending).
func popularity(sorted []int, count int) Popularity {
	below := sort.SearchInts(sorted, count)
	upTo := sort.SearchInts(sorted, count+1)
	return Popularity{
		Score:       ranking.Round1(100 * (float64(below) + 0.5*float64(upTo-below)) / float64(len(sorted))),
		RatingCount: count,
		Rank:        len(sorted) - upTo + 1,
	}
}

// foldNames folds every perfume name once, for ordering and searching,
// half on each of two goroutines.
func (b *builder) foldNames() {
	b.nameFold = make([]string, len(b.ix.entries))
	half := len(b.nameFold) / 2
	fold := func(from, to int) {
		for i := from; i < to; i++ {
			b.nameFold[i] = search.Fold(b.ix.entries[i].Name())
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { fold(0, half) })
	fold(half, len(b.nameFold))
	wg.Wait()
}

// buildOrder sorts the documents most rated first, then by name (folded,
// then as written), then slug. The first eight bytes of the folded name
// ride along as an integer, so most comparisons touch no string.
func (b *builder) buildOrder() {
	ix := b.ix
	type rec struct {
		count  int
		prefix uint64
		doc    uint32
	}
	recs := make([]rec, len(ix.entries))
	for i := range recs {
		recs[i] = rec{ix.entries[i].RatingCount, prefix8(b.nameFold[i]), uint32(i)}
	}
	slices.SortFunc(recs, func(x, y rec) int {
		if c := cmp.Or(cmp.Compare(y.count, x.count), cmp.Compare(x.prefix, y.prefix)); c != 0 {
			return c
		}
		ex, ey := &ix.entries[x.doc], &ix.entries[y.doc]
		return cmp.Or(strings.Compare(b.nameFold[x.doc], b.nameFold[y.doc]),
			strings.Compare(ex.Name(), ey.Name()), strings.Compare(ex.Slug(), ey.Slug()), cmp.Compare(x.doc, y.doc))
	})
	ix.order = make([]uint32, len(recs))
	ix.popPos = make([]uint32, len(recs))
	for pos, r := range recs {
		ix.order[pos] = r.doc
		ix.popPos[r.doc] = uint32(pos)
	}
}

// prefix8 packs the first eight bytes of s big-endian, so integers order
// as the strings' prefixes do.
func prefix8(s string) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}
