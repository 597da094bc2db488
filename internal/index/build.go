package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// builder holds what Build computes on the way to an Index.
type builder struct {
	ix       *Index
	opts     Options
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
	// Brands by the group ids copyEntries gave: display names, search
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

// Build indexes ps. The index copies what it keeps (see Entry) and holds
// no reference to ps afterwards. Duplicate slugs or ids keep the first
// perfume for lookups; every perfume is still listed and searched. Independent
// parts are built side by side: the text index, the similarity postings
// and the ordered lists.
func Build(ps []catalog.Perfume, opts Options) *Index {
	ix := &Index{lx: search.DefaultLexicon().WithAliases(opts.Aliases)}
	b := &builder{
		ix: ix, opts: opts,
		brands: newNamer(slugKey), pers: newNamer(slugKey),
		notes: newNamer(search.Fold), accords: newNamer(search.Fold),
	}
	b.copyEntries(ps)
	b.derive()
	b.foldNames()
	b.prepareBrands()
	var wg sync.WaitGroup
	wg.Go(b.buildSimilarity)
	wg.Go(b.buildText)
	b.buildOrder()
	b.buildLists()
	b.buildListText()
	wg.Wait()
	b.nameFold = nil
	return ix
}

// copyEntries copies the perfumes into entries and their tables, interning
// their repeated strings and numbering brands, perfumers, notes and
// accords; notes and accords are done on a second goroutine.
func (b *builder) copyEntries(ps []catalog.Perfume) {
	n := len(ps)
	ix := b.ix
	ix.entries = make([]Entry, n)
	tab := &tables{}
	notes, accords := 0, 0
	for i := range ps {
		p := &ps[i]
		notes += len(p.Notes.Top) + len(p.Notes.Middle) + len(p.Notes.Base) + len(p.Notes.Unplaced)
		accords += len(p.Accords)
		ix.entries[i] = Entry{
			ID: p.ID, Year: p.Year, Rating: p.Rating, RatingCount: p.RatingCount,
			Longevity: p.Longevity, Sillage: p.Sillage, Seasons: p.Seasons, DayNight: p.DayNight,
			tab: tab,
		}
	}
	b.noteOff, b.accOff = make([]uint32, 1, n+1), make([]uint32, 1, n+1)
	b.docNotes, b.docAccs = make([]noteRef, 0, notes), make([]accRef, 0, accords)
	tab.notes = make([]uint32, 0, notes)
	tab.accords, tab.strengths = make([]uint32, 0, accords), make([]float64, 0, accords)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range ps {
			b.addNotes(&ix.entries[i], &ps[i])
			b.addAccords(&ix.entries[i], &ps[i])
		}
	})
	b.addNames(ps, tab)
	wg.Wait()
	tab.noteSpell, tab.accordSpell = b.notes.str, b.accords.str
	tab.perfumerSpell, tab.brandSpell, tab.brandKey = b.pers.str, b.brands.str, b.brands.keys
}

// addNames copies each perfume's own strings into text blocks, fills the
// slug and id lookups and interns brands, perfumers and the other repeated
// strings.
func (b *builder) addNames(ps []catalog.Perfume, tab *tables) {
	ix := b.ix
	n := len(ps)
	ix.bySlug = make(map[string]uint32, n)
	ix.byID = make(map[int64]uint32, n)
	ix.brandOf = make([]uint32, n)
	b.persOf = make([][]uint32, n)
	var text textWriter
	words := map[string]uint32{}
	word := func(s string) uint32 {
		id, ok := words[s]
		if !ok {
			id = uint32(len(tab.words))
			words[s] = id
			tab.words = append(tab.words, strings.Clone(s))
		}
		return id
	}
	for i := range ps {
		p, e := &ps[i], &ix.entries[i]
		var refs [3]textRef
		e.block, refs = text.add(p.Slug, p.Name, p.Description)
		e.slug, e.name, e.descr = refs[0], refs[1], refs[2]
		sp, g := b.brands.spelling(p.Brand, p.BrandSlug)
		e.brand, e.brandGroup, ix.brandOf[i] = sp, g, g
		e.gender, e.tier = word(string(p.Gender)), word(string(p.PriceTier))
		e.conc, e.family = word(p.Concentration), word(p.Family)
		e.persAt, e.nPers = uint32(len(tab.perfumers)), uint32(len(p.Perfumers))
		for _, name := range p.Perfumers {
			sp, g := b.pers.spelling(name, "")
			tab.perfumers = append(tab.perfumers, sp)
			b.persOf[i] = append(b.persOf[i], g)
		}
	}
	tab.text = text.done()
	for i := range ix.entries {
		e := &ix.entries[i]
		doc := uint32(i)
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
	tab := e.tab
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
	tab := e.tab
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
	counts := make([]int, n)
	for i := range ix.entries {
		counts[i] = ix.entries[i].RatingCount
	}
	slices.Sort(counts)
	for i := range ix.entries {
		e := &ix.entries[i]
		e.Popularity = popularity(counts, e.RatingCount)
		ix.profiles[i] = makeProfile(e)
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
		out[i] = Ranked{Name: names[i], Score: search.Round1(v)}
	}
	slices.SortStableFunc(out, func(a, c Ranked) int { return cmp.Compare(c.Score, a.Score) })
	return out
}

// popularity places a rating count among all of them (sorted ascending).
func popularity(sorted []int, count int) Popularity {
	below := sort.SearchInts(sorted, count)
	upTo := sort.SearchInts(sorted, count+1)
	return Popularity{
		Score:       search.Round1(100 * (float64(below) + 0.5*float64(upTo-below)) / float64(len(sorted))),
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
