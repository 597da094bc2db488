// Package describe reads what a description means: free text such as
// "vanilla tobacco for winter" or "fresh citrus for the office, no oud"
// turned into a Reading of accords and notes wanted and excluded, gender,
// season, time of day and brand, with the words it did not understand.
//
// Its vocabulary is the catalogue's own (every accord, note and brand
// name, folded as the search folds text, plurals and multi-word names
// included) and the project's table of people's words (words.txt: "boozy",
// "beachy", "for him", "date night", the filler words and the negations).
// A Parser is built once per catalogue (For) and reads a description with
// map lookups of its phrases, the longest first. The index ranks what a
// Reading asks (Reading.Query); the API, MCP and the site read through
// the same Parser.
package describe

import (
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Kind is what a term of a description names.
type Kind string

// The kinds of terms.
const (
	KindScent  Kind = "scent" // an accord, a note, or a word for them
	KindGender Kind = "gender"
	KindSeason Kind = "season"
	KindTime   Kind = "time"
	KindBrand  Kind = "brand"
)

// Term is one understood part of a description, in the order written.
type Term struct {
	// Text is the phrase as read (folded), e.g. "date night".
	Text string
	Kind Kind
	// Value is what it means, for display: the accord or note name as
	// the catalogue spells it ("Tonka Bean" for "tonka"), the word for a
	// scent ("boozy"), the gender, season or time value, the brand name.
	Value string
	// Excluded is set for a scent asked away ("no oud").
	Excluded bool
}

// Reading is what a description means.
type Reading struct {
	// Terms are the understood terms in the order written.
	Terms []Term
	// Wants are the scents wanted, one per term: a perfume meets one
	// when it has any of its accords or notes (a note with the notes
	// named after it: Vanilla with Madagascar Vanilla).
	Wants []index.Want
	// Accords and Notes are the catalogue's names of what Wants name,
	// first seen first, for an echo ("vanilla" is both an accord and a
	// note). Excluded is the same of the scents asked away, and Exclude
	// what a perfume must not have.
	Accords, Notes, Excluded []string
	Exclude                  index.Want
	Gender                   catalog.Gender
	Season, Time             string
	// Brand is the brand named, as the catalogue spells it, and
	// BrandSlug its slug; empty when none.
	Brand, BrandSlug string
	// Ignored are the words not understood (nor filler), in order.
	Ignored []string
}

// Understood reports whether the reading asks anything.
func (r *Reading) Understood() bool { return len(r.Terms) > 0 }

// kind of a phrase in the parser's map.
type kind uint8

const (
	kScent kind = iota + 1
	kGender
	kSeason
	kTime
	kBrand
	kFiller
	kNegation
	kConnector
)

// entry is what a folded phrase means.
type entry struct {
	kind  kind
	scent int32  // with kScent: its place in Parser.scents
	value string // gender, season or time value; brand name
	slug  string // brand slug
}

// scent is a scent the parser knows: what it is shown as and what it
// finds.
type scent struct {
	label          string
	accords, notes []string // the catalogue's names, for the echo
	want           index.Want
}

// Parser reads descriptions in the vocabulary of one catalogue. It is
// immutable and safe for concurrent use.
type Parser struct {
	phrases map[string]entry
	scents  []scent
	longest int // words in the longest phrase
}

// Parse reads text. It never fails: what it does not understand is in
// Ignored.
func (p *Parser) Parse(text string) Reading {
	var r Reading
	folded := search.Fold(text)
	var buf [64]int32
	starts := buf[:0] // start of every word; the word ends before the next start's space
	for i := 0; i < len(folded); {
		starts = append(starts, int32(i))
		j := strings.IndexByte(folded[i:], ' ')
		if j < 0 {
			break
		}
		i += j + 1
	}
	end := func(w int) int { // the end of word w
		if w+1 < len(starts) {
			return int(starts[w+1]) - 1
		}
		return len(folded)
	}
	negate, carry := false, false // a negation waits for its scent; one was just excluded
	for w := 0; w < len(starts); {
		n, e := p.longestAt(folded, starts, w, end)
		if n == 0 {
			r.Ignored = append(r.Ignored, folded[starts[w]:end(w)])
			negate, carry = false, false
			w++
			continue
		}
		phrase := folded[starts[w]:end(w+n-1)]
		w += n
		switch e.kind {
		case kFiller:
			carry = false // a negation waits over "too", "any", but ends at a word after its scent
			continue
		case kNegation:
			negate, carry = true, false
			continue
		case kConnector:
			negate, carry = negate || carry, false // "no oud or vanilla"
			continue
		case kScent:
			r.addScent(&p.scents[e.scent], phrase, negate)
			carry = negate
			negate = false
			continue
		}
		if negate || carry {
			// "not for winter": a negated gender, season, time or brand
			// is not a filter this reading can express.
			r.Ignored = append(r.Ignored, phrase)
			negate, carry = false, false
			continue
		}
		r.addValue(e, phrase)
	}
	return r
}

// longestAt finds the longest known phrase starting at word w: its
// number of words (0 when none) and its entry.
func (p *Parser) longestAt(folded string, starts []int32, w int, end func(int) int) (int, entry) {
	for n := min(p.longest, len(starts)-w); n > 0; n-- {
		if e, ok := p.phrases[folded[starts[w]:end(w+n-1)]]; ok {
			return n, e
		}
	}
	return 0, entry{}
}

// addScent adds a scent term, wanted or excluded.
func (r *Reading) addScent(s *scent, phrase string, excluded bool) {
	r.Terms = append(r.Terms, Term{Text: phrase, Kind: KindScent, Value: s.label, Excluded: excluded})
	if excluded {
		r.Excluded = appendNew(r.Excluded, s.label)
		r.Exclude.Accords = append(r.Exclude.Accords, s.want.Accords...)
		r.Exclude.Notes = append(r.Exclude.Notes, s.want.Notes...)
		return
	}
	r.Wants = append(r.Wants, s.want)
	for _, a := range s.accords {
		r.Accords = appendNew(r.Accords, a)
	}
	for _, n := range s.notes {
		r.Notes = appendNew(r.Notes, n)
	}
}

// addValue adds a gender, season, time or brand term; a second one of a
// kind already set is ignored (one filter of each kind).
func (r *Reading) addValue(e entry, phrase string) {
	var dst *string
	var k Kind
	switch e.kind {
	case kGender:
		dst, k = (*string)(&r.Gender), KindGender
	case kSeason:
		dst, k = &r.Season, KindSeason
	case kTime:
		dst, k = &r.Time, KindTime
	case kBrand:
		dst, k = &r.Brand, KindBrand
	}
	if *dst != "" && *dst != e.value {
		r.Ignored = append(r.Ignored, phrase)
		return
	}
	if *dst == e.value {
		return // said twice
	}
	*dst = e.value
	if e.kind == kBrand {
		r.BrandSlug = e.slug
	}
	r.Terms = append(r.Terms, Term{Text: phrase, Kind: k, Value: e.value})
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Apply returns q with what r asks added: its wanted scents as terms
// (Wants), its exclusions, its brand, and its gender, season and time as
// terms (Prefer) where q has no filter of that kind: a parameter given
// explicitly wins over the description. A reading that understood
// anything ranks as a description does (index.SortPopular).
func (r *Reading) Apply(q index.MatchQuery) index.MatchQuery {
	if r.Understood() && q.Sort == "" {
		q.Sort = index.SortPopular
	}
	q.Wants = append(q.Wants[:len(q.Wants):len(q.Wants)], r.Wants...)
	if len(r.Exclude.Accords)+len(r.Exclude.Notes) > 0 {
		q.Exclude = index.Want{
			Accords: append(q.Exclude.Accords[:len(q.Exclude.Accords):len(q.Exclude.Accords)], r.Exclude.Accords...),
			Notes:   append(q.Exclude.Notes[:len(q.Exclude.Notes):len(q.Exclude.Notes)], r.Exclude.Notes...),
		}
	}
	if q.Gender == "" {
		q.Prefer.Gender = r.Gender
	}
	if q.Season == "" {
		q.Prefer.Season = r.Season
	}
	if q.Time == "" {
		q.Prefer.Time = r.Time
	}
	if q.Brand == "" {
		q.Brand = r.BrandSlug
	}
	return q
}
