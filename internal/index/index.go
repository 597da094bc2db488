// Package index is the in-memory, immutable catalogue the API reads: built
// once from the stored perfumes, it answers lists, text search, similar
// perfumes, dupes and profile matches without touching the database.
// Everything that can be computed ahead is computed by Build, so each call
// does little more than walk precomputed postings. An Index is never
// changed after Build; a Holder swaps whole indexes after an import.
package index

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Options configure a build.
type Options struct {
	// AccordColor returns "#RRGGBB" for an accord name; nil gives every
	// accord DefaultAccordColor.
	AccordColor func(accord string) string
	// Curated lists operator pairs of similar perfumes by slug; each pair
	// counts both ways. Unknown slugs are ignored.
	Curated [][2]string
	// Aliases adds brand aliases (alias → brand names) to the built-in ones
	// of search.DefaultLexicon.
	Aliases map[string][]string
}

// DefaultAccordColor is the colour of an accord Options.AccordColor does not
// know (or when it is nil).
const DefaultAccordColor = "#CCCCCC"

// SeasonRanking lists the four seasons by vote share (0–100, one decimal),
// highest first; ties keep the order winter, spring, summer, fall.
func (e *Entry) SeasonRanking() []Ranked {
	s := e.Seasons
	return rank([]string{"winter", "spring", "summer", "fall"}, s.Winter, s.Spring, s.Summer, s.Fall)
}

// TimeRanking lists day and night by vote share, highest first.
func (e *Entry) TimeRanking() []Ranked {
	return rank([]string{"day", "night"}, e.DayNight.Day, e.DayNight.Night)
}

// Ranked is one named share (0–100, one decimal) in a ranking.
type Ranked struct {
	Name  string
	Score float64
}

// Popularity places a perfume by its number of ratings.
type Popularity struct {
	// Score is the percentile rank of the rating count, 0–100 with one
	// decimal: the share of the catalogue rated less often, counting
	// perfumes rated equally often as half below.
	Score       float64
	RatingCount int
	// Rank is 1 for the most rated perfume; equally rated perfumes share
	// a rank (1, 2, 2, 4).
	Rank int
}

// Page is one page of perfumes. A page past the end has no entries (an
// empty, non-nil slice) but still the right Total and Pages; Pages is 0
// when Total is.
type Page struct {
	Entries                   []*Entry
	Total, Page, Pages, Limit int
}

// ListQuery selects perfumes. The caller has validated it: Page ≥ 1,
// 1 ≤ Limit ≤ 100 (other values are clamped, not refused).
type ListQuery struct {
	// Q is the text query; empty lists the catalogue most rated first.
	Q string
	// Brand is a brand slug; an unknown one gives an empty list.
	Brand       string
	Page, Limit int
}

// Scored is a perfume found by similarity or match, with its matchScore
// (0–100, one decimal) and, when found by similarity (Similar, Dupes), what
// it shares with the source (empty lists when nothing). A match leaves
// SharedAccords the zero AccordList and SharedNotes nil: no answer shows
// what a result shares with a profile, and working it out was a tenth of a
// match's CPU.
type Scored struct {
	*Entry
	Score         float64
	SharedAccords AccordList // its own strengths, strongest first
	SharedNotes   []string
}

// MatchQuery is a profile to match: hard filters (Gender, Season, Time;
// empty = any) and soft wishes (Accords, Notes).
type MatchQuery struct {
	Accords      []AccordWant
	Notes        []string
	Gender       catalog.Gender
	Season, Time string
	Page, Limit  int
	// Exclude keeps out every perfume having one of its accords or notes.
	Exclude Want
	// Sort is "" (by matchScore) or SortPopular: for a match, by the
	// number of wishes or terms a perfume meets, and among those meeting
	// as many, well-known and well-rated perfumes first (ranking.Renown).
	Sort string
	// The terms of a description (package describe), each met or not:
	// Wants, a perfume meeting one when it has any of its accords or
	// notes, and Prefer's gender, season and time. A query with any
	// ranks as SortPopular does, its matchScore the share of its terms a
	// perfume meets.
	Wants  []Want
	Prefer Preference
	// Brand is a brand's slug: only its perfumes.
	Brand string
}

// Want is a scent a description asks for: a perfume meets it when it has
// any of its accords or notes (names as the catalogue spells them).
type Want struct{ Accords, Notes []string }

// Preference is the gender, season and time of day a description asks
// for, each a term a perfume meets or not: the gender equal or unisex,
// the season its most voted or near it, the time likewise. Empty fields
// ask nothing.
type Preference struct {
	Gender       catalog.Gender
	Season, Time string
}

// AccordWant is an accord asked for at a strength 0–100 (callers default
// it to 100).
type AccordWant struct {
	Name     string
	Strength float64
}

// MatchResult is one page of matches, with the canonical names of what was
// asked for.
type MatchResult struct {
	Items                     []Scored
	Total, Page, Pages, Limit int
	Accords                   []AccordWant
	Notes                     []string
}

// Count is one entry of the brand, note, perfumer and accord lists. Slug is
// set for brands and perfumers, Color for accords.
type Count struct {
	Name, Slug string
	Count      int
	Color      string
}

// Index is an immutable catalogue. All methods are safe for concurrent use.
type Index struct {
	entries []Entry
	bySlug  map[string]uint32
	byID    map[int64]uint32
	// order lists documents most rated first (then name, then slug);
	// popPos is each document's place in it.
	order  []uint32
	popPos []uint32
	// attrOf is the concentration and gender of each place of order (the
	// text index's documents), word ids of the entries' tables
	// (conc | gender<<16), which a search asking an edition or a gender
	// compares without reading the entry (a cache miss a match at 200,000
	// perfumes); nil when the tables hold more words than 16 bits tell,
	// and a search reads the entries. concWords and genderWords are the
	// words in use.
	attrOf                 []uint32
	concWords, genderWords []attrWord

	lx *search.Lexicon
	// text is the perfumes' text index; its document pos is the perfume
	// order[pos] (see buildText).
	text *search.TextIndex
	// brandOf is each document's brand group, an index into brands.
	brandOf    []uint32
	brands     []group // by count desc, then name
	brandSlugs map[string]uint32
	brandText  *search.TextIndex // document i is brands[i]
	perfumers  []group
	persSlugs  map[string]uint32
	notes      []Count           // by count desc, then name
	accords    []Count           // by count desc, then name
	accordText *search.TextIndex // document i is accords[i]
	// noteIDs and accordIDs map a folded name to its id, noteName and
	// accordName an id to its canonical (most used) spelling.
	noteIDs    map[string]uint32
	noteName   []string
	accordIDs  map[string]uint32
	accordName []string
	// line is each document's product line (brand and first own name
	// word), which Similar keeps from crowding a result list.
	line     []uint64
	profiles []profile // per document, for the match filters
	// has is each document's profile.has apart: a filtered match tests
	// every perfume of the blocks it reads, and two bytes a perfume stay
	// in cache where the fourteen of a profile did not.
	has []uint16
	sim *simIndex
	// bits are the bitmaps Match counts and prunes with.
	bits *matchBits
	// browse is what Browse filters, sorts and counts with.
	browse *browseIndex
	// neighbours holds the kept similar and dupes lists (neighbours.go),
	// filled after the build; the only part of an Index that changes.
	neighbours *neighbours

	// renown is each document's place in the order of ranking.Renown,
	// larger first (n for the first), and near the seasons and times of
	// day it is near its most voted (match_ranked.go).
	renown []uint32
	near   []uint8
	// byRenown lists the documents by renown, first first; nearBits are
	// near's bits as bitmaps (bit i's documents at i*bits.words), for the
	// popular match (match_popular.go).
	byRenown []uint32
	nearBits []uint64
	popular  popularPool
	exact    struct {
		once  sync.Once
		names *exactNames
	}
	rankedPool rankedPool

	// brandsKnown lists brands (places in brands) by how well known
	// they are: their perfumes' rating counts summed, most first.
	brandsKnown []uint32
}

// group is a brand or perfumer with its perfumes, most rated first.
type group struct {
	Count
	docs []uint32
}

// Len is the number of perfumes.
func (ix *Index) Len() int { return len(ix.entries) }

// AccordSpellings lists every accord name as the catalogue spells it, by
// spelling id (AccordList.Spelling): a caller that keeps something per
// accord, such as its encoded JSON, looks it up by id, not by name.
// Callers must not change it.
func (ix *Index) AccordSpellings() []string {
	if len(ix.entries) == 0 {
		return nil
	}
	return ix.entries[0].tab.accordSpell
}

// Pos returns the position of e among ix's perfumes, in [0, Len()), for a
// caller that keeps something per perfume in a slice (the API's encoded
// list items); false when e is not one of ix's entries (an entry of an
// earlier catalogue, say). Entries live in one array, so the position is
// e's offset in it.
func (ix *Index) Pos(e *Entry) (int, bool) {
	if e == nil || len(ix.entries) == 0 {
		return 0, false
	}
	d := uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(&ix.entries[0]))
	i := d / unsafe.Sizeof(Entry{})
	if i >= uintptr(len(ix.entries)) || &ix.entries[i] != e {
		return 0, false
	}
	return int(i), true
}

// Perfume returns the perfume with the given slug; the error wraps
// catalog.ErrNotFound when there is none.
func (ix *Index) Perfume(slug string) (*Entry, error) {
	doc, ok := ix.bySlug[slug]
	if !ok {
		return nil, fmt.Errorf("perfume %q: %w", slug, catalog.ErrNotFound)
	}
	return &ix.entries[doc], nil
}

// IDs returns the numeric id of every perfume, in index order.
func (ix *Index) IDs() []int64 {
	out := make([]int64, len(ix.entries))
	for i := range ix.entries {
		out[i] = ix.entries[i].ID
	}
	return out
}

// ByID returns the perfume with the given numeric id.
func (ix *Index) ByID(id int64) (*Entry, bool) {
	doc, ok := ix.byID[id]
	if !ok {
		return nil, false
	}
	return &ix.entries[doc], true
}

// Holder holds the current index. Readers Load it once per request and use
// that index throughout, so they never see half of an old catalogue and
// half of a new one; Store swaps in a new index atomically.
type Holder struct {
	p atomic.Pointer[Index]
}

// NewHolder returns a holder of ix.
func NewHolder(ix *Index) *Holder {
	h := &Holder{}
	h.p.Store(ix)
	return h
}

// Load returns the current index.
func (h *Holder) Load() *Index { return h.p.Load() }

// Store makes ix the current index.
func (h *Holder) Store(ix *Index) { h.p.Store(ix) }
