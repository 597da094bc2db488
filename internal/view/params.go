package view

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// Limit is the default and the maximum of a limit parameter. A limit above
// its maximum is clamped to it, never refused (the contract), and the
// effective value is echoed; Default 0 means "all".
type Limit struct{ Default, Max int }

// Clamp is n (a positive limit a client asked for) within the maximum.
func (l Limit) Clamp(n int) int {
	if l.Max > 0 && n > l.Max {
		return l.Max
	}
	return n
}

// The limits of the seed and the contract.
var (
	PerfumesLimit = Limit{Default: 20, Max: 100}
	// ChangesLimit is the change feed's page size.
	ChangesLimit = Limit{Default: 100, Max: 1000}
	SimilarLimit = Limit{Default: 10, Max: 20}
	DupesLimit   = Limit{Default: 20, Max: 50}
	MatchLimit   = Limit{Default: 20, Max: 50}
	// RecommendLimit is the recommendations' page size.
	RecommendLimit = Limit{Default: 10, Max: 50}
	AccordsLimit   = Limit{Default: 50, Max: 100}
	PerfumerLimit  = Limit{Default: 20, Max: 100}
	NotesLimit     = Limit{Default: 0, Max: 100_000}
	// SiteSearchLimit is the keyless site search's (/api/search).
	SiteSearchLimit = Limit{Default: 8, Max: 20}
)

const (
	// SimilarInDetail is how many similar perfumes a detail carries.
	SimilarInDetail = 5
	// MaxTextLen is the longest q or search the contract accepts, in
	// characters.
	MaxTextLen = 200
	// MaxPage bounds page so that offsets never overflow; a page past the
	// last one answers an empty list anyway.
	MaxPage = 1_000_000
	// MaxListItems is how many accords or notes a match may ask for.
	MaxListItems = 20
	// MaxLiked is how many perfumes a taste may like, and dislike.
	MaxLiked = 10
	// MaxListLen is the longest comma-separated list parameter, in
	// characters.
	MaxListLen = 1000
)

// The values of match's hard filters.
var (
	Genders = []string{string(catalog.Masculine), string(catalog.Feminine), string(catalog.Unisex)}
	Seasons = []string{"winter", "spring", "summer", "fall"}
	Times   = []string{"day", "night"}
	// MatchSorts are match's orders besides the default (by matchScore).
	MatchSorts = []string{index.SortPopular}
)

// TextTooLong reports whether a free-text parameter (q, search) is longer
// than MaxTextLen characters.
func TextTooLong(s string) bool { return utf8.RuneCountInString(s) > MaxTextLen }

// Canonical returns the value of allowed that s names, ignoring case, and
// false when it names none.
func Canonical(s string, allowed []string) (string, bool) {
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a, true
		}
	}
	return "", false
}

// ParseAccordWant reads one "name[:strength]" item of match's accords: the
// strength is 0–100, 100 when not given. A bad item gives a ParamError of
// parameter accords saying what is wrong.
func ParseAccordWant(item string) (index.AccordWant, *catalog.ParamError) {
	name, num, hasNum := strings.Cut(item, ":")
	name = strings.TrimSpace(name)
	w := index.AccordWant{Name: name, Strength: 100}
	if name == "" {
		return w, &catalog.ParamError{Parameter: "accords", Message: "an accord name is empty in " + strconv.Quote(item)}
	}
	if hasNum {
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || f < 0 || f > 100 || f != f {
			return w, &catalog.ParamError{Parameter: "accords", Message: "strength of " + strconv.Quote(name) + " must be a number from 0 to 100"}
		}
		w.Strength = f
	}
	return w, nil
}
