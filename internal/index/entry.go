package index

import (
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Entry is one perfume of an index, with what is derived from it at build
// time. Its numbers are fields; its strings and lists are methods that read
// the tables the entries of an index share. An Entry holds no pointer but
// the one to those tables, so that the garbage collector does not walk
// millions of pointers in every cycle, as it would for a catalogue held as
// catalog.Perfume values: the tables are a few dozen large pointer-free
// arrays plus the interned names. Entries are small on purpose (views that are cheap to compute,
// such as the rankings, are methods), as there is one per perfume.
type Entry struct {
	ID int64
	// Seq is the change sequence of the stored record the entry was built
	// from (catalog.Perfume.Seq): the change feed serves the entry when the
	// store's change names the same sequence.
	Seq         int64
	Year        int // 0 when unknown
	Rating      float64
	RatingCount int
	Longevity   float64
	Sillage     float64
	Seasons     catalog.Seasons
	DayNight    catalog.DayNight
	Popularity  Popularity

	tab *tables
	// The perfume's own strings, in text block block.
	block             uint32
	slug, name, descr textRef
	// Repeated strings: the brand's spelling (an id into brandSpell) and
	// group (into brandKey), the others ids into words.
	brand, brandGroup, gender, tier, conc, family uint32
	// Accords at tables.accords[accAt:accAt+nAcc]; notes, layer by layer,
	// at tables.notes[noteAt:]; perfumers at tables.perfumers[persAt:].
	accAt, nAcc   uint32
	noteAt        uint32
	nNotes        [4]uint32 // by layer: top, middle, base, unplaced
	persAt, nPers uint32
}

// textRef is a string in a text block: its offset and length.
type textRef struct{ off, n uint32 }

// tables hold what the entries of one index share.
type tables struct {
	// text holds the strings each perfume has alone (slug, name,
	// description), in blocks of at most textBlockSize bytes (a perfume
	// larger than that has a block of its own).
	text []string
	// words holds the other repeated strings an entry refers to by id:
	// genders, price tiers, concentrations and families.
	words []string
	// Every entry's lists, one after another: accords (with their
	// strengths), notes and perfumers, as spelling ids of the builder's
	// namers, whose spellings are kept here.
	accords, notes, perfumers []uint32
	strengths                 []float64
	accordSpell, noteSpell    []string
	perfumerSpell, brandSpell []string
	brandKey                  []string // per brand group: its slug
}

// textBlockSize bounds a text block, so no offset overflows 32 bits and no
// block is copied as it grows.
const textBlockSize = 4 << 20

func (e *Entry) text(r textRef) string { return e.tab.text[e.block][r.off : r.off+r.n] }

// Slug is the perfume's public identifier.
func (e *Entry) Slug() string { return e.text(e.slug) }

// Name is the perfume's name.
func (e *Entry) Name() string { return e.text(e.name) }

// Description is the perfume's description; empty when it has none.
func (e *Entry) Description() string { return e.text(e.descr) }

// Brand is the brand's name as the perfume spells it.
func (e *Entry) Brand() string { return e.tab.brandSpell[e.brand] }

// BrandSlug is the slug of the perfume's brand group.
func (e *Entry) BrandSlug() string { return e.tab.brandKey[e.brandGroup] }

// Gender is the audience the perfume is marketed to.
func (e *Entry) Gender() catalog.Gender { return catalog.Gender(e.tab.words[e.gender]) }

// PriceTier is the brand's price tier; catalog.TierUnknown when unknown.
func (e *Entry) PriceTier() catalog.PriceTier { return catalog.PriceTier(e.tab.words[e.tier]) }

// Concentration is the perfume's concentration; empty when unknown.
func (e *Entry) Concentration() string { return e.tab.words[e.conc] }

// Family is the perfume's olfactory family; empty when unknown.
func (e *Entry) Family() string { return e.tab.words[e.family] }

// Accords lists the perfume's accords in their stored order.
func (e *Entry) Accords() AccordList {
	end := e.accAt + e.nAcc
	return AccordList{names: e.tab.accordSpell, ids: e.tab.accords[e.accAt:end:end], strengths: e.tab.strengths[e.accAt:end:end]}
}

// Notes lists the perfume's notes by pyramid layer.
func (e *Entry) Notes() Notes {
	var ls [4]Names
	at := e.noteAt
	for l, n := range e.nNotes {
		ls[l] = Names{names: e.tab.noteSpell, ids: e.tab.notes[at : at+n : at+n]}
		at += n
	}
	return Notes{Top: ls[layerTop], Middle: ls[layerMiddle], Base: ls[layerBase], Unplaced: ls[layerUnplaced]}
}

// Perfumers lists the perfume's perfumers.
func (e *Entry) Perfumers() Names {
	end := e.persAt + e.nPers
	return Names{names: e.tab.perfumerSpell, ids: e.tab.perfumers[e.persAt:end:end]}
}

// Perfume returns the perfume as a catalog.Perfume, which it allocates:
// for callers outside the hot paths, such as the image renderer.
func (e *Entry) Perfume() catalog.Perfume {
	return catalog.Perfume{
		ID: e.ID, Slug: e.Slug(), Name: e.Name(), Brand: e.Brand(), BrandSlug: e.BrandSlug(),
		Year: e.Year, Gender: e.Gender(), Rating: e.Rating, RatingCount: e.RatingCount,
		Longevity: e.Longevity, Sillage: e.Sillage, Concentration: e.Concentration(),
		Description: e.Description(), Family: e.Family(), Accords: e.Accords().Slice(),
		Notes: e.Notes().Pyramid(), Perfumers: e.Perfumers().Slice(),
		Seasons: e.Seasons, DayNight: e.DayNight, PriceTier: e.PriceTier(),
	}
}

// AccordList is a perfume's accord list as an index stores it.
type AccordList struct {
	names     []string
	ids       []uint32
	strengths []float64
}

// Len is the number of accords.
func (a AccordList) Len() int { return len(a.ids) }

// At returns accord i.
func (a AccordList) At(i int) catalog.AccordStrength {
	return catalog.AccordStrength{Name: a.names[a.ids[i]], Strength: a.strengths[i]}
}

// Spelling returns accord i's spelling id: its name is
// Index.AccordSpellings()[id], the same for every perfume that spells it so.
func (a AccordList) Spelling(i int) uint32 { return a.ids[i] }

// Slice returns the accords in a new slice; nil when there are none.
func (a AccordList) Slice() []catalog.AccordStrength {
	if a.Len() == 0 {
		return nil
	}
	out := make([]catalog.AccordStrength, a.Len())
	for i := range out {
		out[i] = a.At(i)
	}
	return out
}

// Names is a list of names (notes of a layer, perfumers) as an index
// stores it.
type Names struct {
	names []string
	ids   []uint32
}

// Len is the number of names.
func (n Names) Len() int { return len(n.ids) }

// At returns name i.
func (n Names) At(i int) string { return n.names[n.ids[i]] }

// Slice returns the names in a new slice; nil when there are none.
func (n Names) Slice() []string {
	if n.Len() == 0 {
		return nil
	}
	out := make([]string, n.Len())
	for i := range out {
		out[i] = n.At(i)
	}
	return out
}

// Notes is a perfume's note pyramid as an index stores it.
type Notes struct{ Top, Middle, Base, Unplaced Names }

// Pyramid returns the notes as a catalog.NotePyramid, which it allocates.
func (n Notes) Pyramid() catalog.NotePyramid {
	return catalog.NotePyramid{Top: n.Top.Slice(), Middle: n.Middle.Slice(), Base: n.Base.Slice(), Unplaced: n.Unplaced.Slice()}
}

// textWriter lays the perfumes' own strings out in blocks.
type textWriter struct {
	blocks []string
	cur    strings.Builder
}

// add writes a perfume's strings and returns their block and references.
func (w *textWriter) add(ss ...string) (uint32, [3]textRef) {
	size := 0
	for _, s := range ss {
		size += len(s)
	}
	if w.cur.Len() > 0 && w.cur.Len()+size > textBlockSize {
		w.flush()
	}
	if w.cur.Cap() == 0 {
		w.cur.Grow(max(size, textBlockSize))
	}
	var refs [3]textRef
	for i, s := range ss {
		refs[i] = textRef{uint32(w.cur.Len()), uint32(len(s))}
		w.cur.WriteString(s)
	}
	return uint32(len(w.blocks)), refs
}

// flush ends the current block.
func (w *textWriter) flush() {
	w.blocks = append(w.blocks, w.cur.String())
	w.cur = strings.Builder{}
}

// done returns the blocks. A last block mostly unused is copied to its
// size: a small catalogue has no business holding four megabytes.
func (w *textWriter) done() []string {
	if w.cur.Cap() > 0 {
		last := w.cur.String()
		if 2*w.cur.Len() < w.cur.Cap() {
			last = strings.Clone(last)
		}
		w.blocks = append(w.blocks, last)
		w.cur = strings.Builder{}
	}
	return w.blocks
}

// Prefetch reads, for each of es, the memory that writing its list item
// reads first: the entry, its slug and name, its accords. A page's
// perfumes lie anywhere in memory (only the first pages of a list are
// often read), and reading them one item at a time waits for each of
// these loads in turn; one pass over them all, before, starts the loads of
// many perfumes at once, as they do not wait on one another (fillShared
// does the same), so the page waits for the memory about once. It returns
// a value made of what it read, which the caller keeps, so that the loads
// are not compiled away.
func Prefetch(es []*Entry) uint32 {
	var x uint32
	for _, e := range es {
		x += uint32(e.RatingCount) + e.accAt + e.conc
		t := e.tab
		if txt := t.text[e.block]; int(e.name.off) < len(txt) {
			x += uint32(txt[e.slug.off]) + uint32(txt[e.name.off])
		}
		if e.nAcc > 0 { // the first and last of each list (they may lie on two lines)
			last := e.accAt + e.nAcc - 1
			x += t.accords[e.accAt] + t.accords[last] + uint32(t.strengths[e.accAt]) + uint32(t.strengths[last])
		}
	}
	return x
}
