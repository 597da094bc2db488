package index

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// The orders Browse sorts by (BrowseQuery.Sort).
const (
	// SortPopular is the most rated first, then name: the order of
	// Perfumes without a text query, and Browse's default without one.
	SortPopular = "popular"
	// SortRating is the best rated first, the rating weighted by how many
	// rated it (ranking.WeightedRating, the catalogue's mean as the prior),
	// so a 5 from three people does not top a 4.4 from twenty thousand.
	SortRating = "rating"
	// SortNewest is the latest launch year first; perfumes of unknown year last.
	SortNewest = "newest"
	// SortOldest is the earliest launch year first; unknown year last.
	SortOldest = "oldest"
	// SortName is by name (accents and case folded), then brand order.
	SortName = "name"
)

// Sorts lists the values of BrowseQuery.Sort. With a text query and no
// sort, Browse ranks by relevance, as Perfumes does.
var Sorts = []string{SortPopular, SortRating, SortNewest, SortOldest, SortName}

// The facets Browse can count (BrowseQuery.Facets).
const (
	FacetGender  = "gender"
	FacetSeason  = "season"
	FacetTime    = "time"
	FacetAccords = "accords"
	FacetNotes   = "notes"
	FacetYear    = "year"
)

// FacetNames lists the facets Browse counts, in the order answers show them.
var FacetNames = []string{FacetGender, FacetSeason, FacetTime, FacetAccords, FacetNotes, FacetYear}

// FacetValues is how many accords and notes their facets list at most:
// the most common in the filtered set.
const FacetValues = 50

// MaxIDs is how many slugs one lookup (BrowseQuery.IDs) may name.
const MaxIDs = 100

// BrowseQuery selects, sorts and counts perfumes (see Index.Browse). The
// zero value lists the whole catalogue, most rated first, like a
// ListQuery without Q or Brand.
type BrowseQuery struct {
	// Q is a text query; Brand a brand slug (an unknown one gives an empty
	// list), as in ListQuery.
	Q, Brand string
	// Perfumer keeps a perfumer's perfumes: a perfumer slug, an unknown one
	// giving an empty list, as Brand.
	Perfumer string
	// Genders keeps the perfumes of any of these genders.
	Genders []catalog.Gender
	// Accords and Notes must all be on a perfume; NotAccords and NotNotes
	// must all be absent. Names are matched as the catalogue folds them.
	Accords, NotAccords []string
	Notes, NotNotes     []string
	// Season and Time keep the perfumes where it has the largest share of
	// the votes (ties count for each; a perfume without votes has none).
	Season, Time string
	// Years keeps the perfumes launched within it; a perfume of unknown
	// year passes only an empty range.
	Years YearRange
	// MinRating keeps the perfumes rated at least this (1–5); 0 keeps all.
	MinRating float64
	// Sort is one of Sorts; empty is relevance with Q, else SortPopular.
	Sort string
	// Facets names the facets to count (FacetNames) over the whole
	// filtered set.
	Facets []string
	// IDs, when not empty, makes the query a lookup: the perfumes of these
	// slugs (at most MaxIDs) in the order asked, each once; nothing else
	// of the query applies.
	IDs         []string
	Page, Limit int
}

// YearRange is an inclusive range of launch years; 0 leaves an end open,
// and the zero value is any year, unknown included.
type YearRange struct{ From, To int }

// Any reports whether r keeps every perfume.
func (r YearRange) Any() bool { return r.From == 0 && r.To == 0 }

func (r YearRange) has(year int) bool {
	return year != 0 && (r.From == 0 || year >= r.From) && (r.To == 0 || year <= r.To)
}

// BrowseResult is one page of Browse with the facets asked for and, for a
// lookup, the slugs not found.
type BrowseResult struct {
	Page
	// Facets holds the counts asked for; nil when none were.
	Facets *Facets
	// Missing lists a lookup's unknown slugs as asked; nil without IDs.
	Missing []string
}

// Facets are counts of perfumes per value over a filtered set. A facet
// not asked for is nil. The slices may be shared by other answers of
// the same set: read them, never write them. Gender, Season and Time
// list every value in a fixed order (zeros too), Accords and Notes the
// FacetValues most common (most perfumes first, then name; none with no
// perfume), Year every known year with perfumes, earliest first.
type Facets struct {
	Gender, Season, Time, Accords, Notes, Year []FacetCount
}

// FacetCount is one value of a facet and its number of perfumes.
type FacetCount struct {
	Value string
	Count int
}

// browseFilter is a BrowseQuery with its names resolved.
type browseFilter struct {
	genders        uint8 // bits of browseIndex.filter: 1<<i for gender i
	season, time   int   // places in browseIndex.filter, -1 for none
	accords, notes []uint32
	notAcc, notNot []uint32
	years          YearRange
	minRating      float64 // 0 for none
	brand          int     // a brands group, -1 for none, -2 for an unknown brand
	perfumer       int     // a perfumers group, -1 for none, -2 for an unknown perfumer
	sort           string
}

// Browse selects perfumes by the query's filters (all of them combined),
// sorts them and cuts a page, with the exact total and the facets asked
// for counted over the whole filtered set. Unknown values (a gender,
// season, time, sort, facet, accord or note) give catalog.ParamErrors
// naming the parameter, with suggestions for the names.
//
// Each filter is a bitmap of the catalogue, so the filtered set is a few
// thousand words ANDed, its total their popcount; the page walks the
// sort's precomputed order until it is full, testing each perfume's bit.
func (ix *Index) Browse(q BrowseQuery) (BrowseResult, error) {
	if len(q.IDs) > 0 {
		return ix.lookup(q.IDs), nil
	}
	f, err := ix.resolveBrowse(q)
	if err != nil {
		return BrowseResult{}, err
	}
	bi := ix.browse
	w := bi.work()
	defer bi.pool.Put(w)
	pq := search.ParseQuery(q.Q, ix.lx)
	text := len(pq.Tokens) > 0
	// The facets asked for that the memo lacks for this set (need) are
	// counted, and kept for the set's other pages and sorts.
	want := maskOf(q.Facets)
	var key string
	var kept memoFacets
	if want != 0 {
		key = f.memoKey(q.Q, text)
		kept = bi.memo.get(key)
	}
	need := want &^ kept.mask
	all := ix.filterSet(&f, w)
	var res BrowseResult
	switch {
	case f.brand == -2 || f.perfumer == -2:
		_, _, p, l := paging(q.Page, q.Limit)
		res.Page = Page{Entries: []*Entry{}, Page: p, Limit: l}
		clear(w.cand)
	case text && f.sort == "":
		res.Page = ix.searchPerfumes(pq, ix.keepFn(w.cand, all), q.Page, q.Limit)
		if need != 0 {
			ix.textSet(pq, w, all)
		}
	default:
		if text {
			all = ix.textSet(pq, w, all)
		}
		res.Page = ix.sortedPage(bi.orderOf(ix, f.sort), w.cand, all, q.Page, q.Limit)
	}
	if need != 0 {
		var counted *Facets
		if s, t, ok := f.fixedOnly(); ok && !text {
			counted = ix.fixedFacets(&f, s, t, need, w.row)
		} else {
			counted = ix.facets(need, w)
		}
		kept = kept.merge(counted, need)
		bi.memo.put(key, kept)
	}
	if want != 0 {
		res.Facets = kept.answer(want)
	}
	return res, nil
}

// CheckBrowse returns the errors Browse would give q, without browsing:
// a caller that found other problems in a request reports these with
// them, in one answer.
func (ix *Index) CheckBrowse(q BrowseQuery) error {
	if len(q.IDs) > 0 {
		return nil
	}
	_, err := ix.resolveBrowse(q)
	return err
}

// keepFn is the text search's keep of the set (its documents are places
// in the popularity order); nil when the set is everything.
func (ix *Index) keepFn(cand []uint64, all bool) func(uint32) bool {
	if all {
		return nil
	}
	return func(pos uint32) bool { d := ix.order[pos]; return cand[d/64]>>(d%64)&1 != 0 }
}

// textSet narrows the set to the text query's matches: the documents the
// search would count.
func (ix *Index) textSet(pq search.Query, w *browseWork, all bool) bool {
	hit := w.tmp
	clear(hit)
	ix.text.Search(pq, ix.keepFn(w.cand, all), func(m *search.Match) {
		d := ix.order[m.Doc]
		hit[d/64] |= 1 << (d % 64)
	})
	copy(w.cand, hit)
	return false
}

// sortedPage cuts a page out of order (every document, sorted), keeping
// those in the set.
func (ix *Index) sortedPage(order []uint32, cand []uint64, all bool, page, limit int) Page {
	if all {
		return ix.pageOf(order, page, limit)
	}
	total := 0
	for _, x := range cand {
		total += bits.OnesCount64(x)
	}
	_, from, p, l := paging(page, limit)
	out := Page{Entries: []*Entry{}, Total: total, Page: p, Limit: l, Pages: pages(total, l)}
	if from >= total {
		return out
	}
	seen, end := 0, min(from+l, total)
	for _, d := range order {
		if cand[d/64]>>(d%64)&1 == 0 {
			continue
		}
		if seen >= from {
			out.Entries = append(out.Entries, &ix.entries[d])
		}
		if seen++; seen == end {
			break
		}
	}
	return out
}

// lookup is Browse of IDs: the perfumes in the order asked, each once, and
// the slugs the catalogue lacks.
func (ix *Index) lookup(slugs []string) BrowseResult {
	res := BrowseResult{Page: Page{Entries: make([]*Entry, 0, len(slugs)), Page: 1}, Missing: []string{}}
	seen := make(map[uint32]bool, len(slugs))
	for _, s := range slugs {
		doc, ok := ix.bySlug[s]
		switch {
		case !ok:
			res.Missing = append(res.Missing, s)
		case !seen[doc]:
			seen[doc] = true
			res.Entries = append(res.Entries, &ix.entries[doc])
		}
	}
	n := len(res.Entries)
	res.Total, res.Limit, res.Pages = n, max(n, 1), min(n, 1)
	return res
}

// resolveBrowse checks a query's values and turns its names into ids.
func (ix *Index) resolveBrowse(q BrowseQuery) (browseFilter, error) {
	f := browseFilter{season: -1, time: -1, brand: -1, perfumer: -1, years: q.Years, sort: q.Sort}
	var errs catalog.ParamErrors
	for _, g := range q.Genders {
		i := genderPlace(g)
		if i < 0 {
			errs = append(errs, unknownValue("gender", "gender", string(g), browseGenders))
			continue
		}
		f.genders |= 1 << i
	}
	if q.Season != "" {
		if f.season = seasonIndex(strings.ToLower(q.Season)); f.season < 0 {
			errs = append(errs, unknownValue("season", "season", q.Season, browseSeasons))
		} else {
			f.season += seasonPlace
		}
	}
	switch strings.ToLower(q.Time) {
	case "":
	case "day":
		f.time = dayPlace
	case "night":
		f.time = nightPlace
	default:
		errs = append(errs, unknownValue("time", "time", q.Time, browseTimes))
	}
	if q.Sort != "" && !containsString(Sorts, q.Sort) {
		errs = append(errs, unknownValue("sort", "sort", q.Sort, Sorts))
	}
	if f.sort == "" && len(search.ParseQuery(q.Q, ix.lx).Tokens) == 0 {
		f.sort = SortPopular
	}
	for _, name := range q.Facets {
		if !containsString(FacetNames, name) {
			errs = append(errs, unknownValue("facets", "facet", name, FacetNames))
		}
	}
	if q.Years.From != 0 && q.Years.To != 0 && q.Years.From > q.Years.To {
		errs = append(errs, &catalog.ParamError{Parameter: "year", Message: fmt.Sprintf("the range starts (%d) after it ends (%d)", q.Years.From, q.Years.To)})
	}
	if q.MinRating < 0 || q.MinRating > 5 || q.MinRating != q.MinRating {
		errs = append(errs, &catalog.ParamError{Parameter: "minRating", Message: "must be a number from 0 to 5"})
	} else {
		f.minRating = q.MinRating
	}
	f.accords, errs = ix.nameIDs(q.Accords, ix.accordIDs, "accords", "accord", ix.AccordNames, errs)
	f.notAcc, errs = ix.nameIDs(q.NotAccords, ix.accordIDs, "accords", "accord", ix.AccordNames, errs)
	f.notes, errs = ix.nameIDs(q.Notes, ix.noteIDs, "notes", "note", ix.NoteNames, errs)
	f.notNot, errs = ix.nameIDs(q.NotNotes, ix.noteIDs, "notes", "note", ix.NoteNames, errs)
	if q.Brand != "" {
		g, ok := ix.brandSlugs[q.Brand]
		if !ok {
			g, ok = ix.brandSlugs[search.Slugify(q.Brand)]
		}
		f.brand = -2
		if ok {
			f.brand = int(g)
		}
	}
	if q.Perfumer != "" {
		f.perfumer = -2
		if g, ok := ix.persSlugs[q.Perfumer]; ok {
			f.perfumer = int(g)
		}
	}
	return f, errs.Err()
}

// nameIDs resolves accord or note names, appending an error with
// suggestions for each unknown one.
func (ix *Index) nameIDs(names []string, ids map[string]uint32, param, kind string, known func() []string, errs catalog.ParamErrors) ([]uint32, catalog.ParamErrors) {
	var out []uint32
	for _, name := range names {
		id, ok := ids[search.Fold(name)]
		switch {
		case !ok:
			errs = append(errs, unknownName(param, kind, name, known()))
		case !containsID(out, id):
			out = append(out, id)
		}
	}
	return out, errs
}

// unknownValue is the error of a value outside a fixed list, suggesting
// the closest and naming them all.
func unknownValue(param, kind, value string, allowed []string) *catalog.ParamError {
	msg := fmt.Sprintf("unknown %s %q", kind, value)
	if sug := search.Suggest(value, allowed, 1); len(sug) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", sug[0])
	}
	return &catalog.ParamError{Parameter: param, Message: msg + "; use " + orList(allowed)}
}

// orList writes a, b or c.
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
