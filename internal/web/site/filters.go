package site

import (
	"errors"
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The filter panel (templates/_filters.html) of the search, brand,
// perfumer, note and accord pages: a plain GET form whose address holds
// the filters. Checkboxes send a parameter once per value, and the
// addresses the page links (paging, the chips) write them the same way: a
// note's name may hold a comma ("Sideritis, Mountain Tea"), so a value is
// one name. The genders alone may also come as a comma list, as the API
// takes them.

// The panel's fixed choices.
var (
	filterSeasons = []string{"winter", "spring", "summer", "fall"}
	filterTimes   = []string{"day", "night"}
	filterRatings = []string{"3", "3.5", "4", "4.5"}
	sortLabels    = map[string]string{
		index.SortPopular: "Most rated", index.SortRating: "Best rated", index.SortNewest: "Newest",
		index.SortOldest: "Oldest", index.SortName: "Name (A–Z)",
	}
)

// panelValues is how many accords and notes the panel offers: the most
// common in the filtered set; those chosen are always shown.
const panelValues = 12

// maxFilterNames bounds the accords and the notes one address may choose.
const maxFilterNames = 20

// filters is what a visitor chose in the panel.
type filters struct {
	Genders        []string
	Season, Time   string
	Accords, Notes []string
	From, To       int // launch years; 0 leaves an end open
	MinRating      string
	Sort           string
}

// any reports whether f narrows or orders the list at all.
func (f filters) any() bool {
	return len(f.Genders)+len(f.Accords)+len(f.Notes) > 0 || f.Season != "" || f.Time != "" ||
		f.From != 0 || f.To != 0 || f.MinRating != "" || f.Sort != ""
}

// parseFilters reads the panel's parameters from a page's address. Each
// problem is a sentence in the panel's words; the filters read are
// returned with them, so the page can show the form again.
func parseFilters(v url.Values) (filters, []string) {
	var f filters
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for _, g := range commaValues(v["gender"]) {
		g = strings.ToLower(g)
		if !slices.Contains(view.Genders, g) {
			fail("Gender: “%s” is not one of feminine, masculine or unisex.", clip(g))
		} else if !slices.Contains(f.Genders, g) {
			f.Genders = append(f.Genders, g)
		}
	}
	one := func(name, label string, allowed []string) string {
		vs := values(v[name])
		switch {
		case len(vs) == 0:
			return ""
		case len(vs) > 1:
			fail("%s: choose one.", label)
			return ""
		}
		s := strings.ToLower(vs[0])
		if allowed != nil && !slices.Contains(allowed, s) {
			fail("%s: “%s” is not one of %s.", label, clip(vs[0]), strings.Join(allowed, ", "))
			return ""
		}
		return s
	}
	f.Season = one("season", "Season", filterSeasons)
	f.Time = one("time", "Time of day", filterTimes)
	f.Sort = one("sort", "Sort by", index.Sorts)
	f.Accords = names(v["accords"], "Accords", fail)
	f.Notes = names(v["notes"], "Notes", fail)
	year := func(name, label string) int {
		s := one(name, label, nil)
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 9999 {
			fail("%s: “%s” is not a year (such as 2015).", label, clip(s))
			return 0
		}
		return n
	}
	f.From, f.To = year("from", "Year from"), year("to", "Year to")
	if f.From != 0 && f.To != 0 && f.From > f.To {
		fail("Year: “from” (%d) is after “to” (%d).", f.From, f.To)
		f.From, f.To = 0, 0
	}
	if s := one("minRating", "Rating", nil); s != "" {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || r < 0 || r > 5 || r != r {
			fail("Rating: “%s” is not a rating from 0 to 5.", clip(s))
		} else {
			f.MinRating = strconv.FormatFloat(r, 'f', -1, 64)
		}
	}
	return f, errs
}

// values are a parameter's values, trimmed, empty ones (a field left as
// it was) dropped.
func values(vs []string) []string {
	var out []string
	for _, s := range vs {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// commaValues are a parameter's values with each split at its commas.
func commaValues(vs []string) []string {
	var out []string
	for _, s := range vs {
		out = append(out, values(strings.Split(s, ","))...)
	}
	return out
}

// names reads the accords or notes chosen, each once; whether the
// catalogue knows them is the index's to say (see browseErrors).
func names(vs []string, label string, fail func(string, ...any)) []string {
	var out []string
	for _, s := range values(vs) {
		if !utf8.ValidString(s) || view.TextTooLong(s) {
			fail("%s: “%s” is not a name.", label, clip(s))
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > maxFilterNames {
		fail("%s: choose at most %d.", label, maxFilterNames)
		return nil
	}
	return out
}

// clip is a value repeated in a message, cut so that no message grows
// with what was sent.
func clip(s string) string {
	if !utf8.ValidString(s) {
		return "?"
	}
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// browseQuery is the index's query of f, within base (the page's fixed
// filter: a brand, a note, an accord, a search's text).
func (f filters) browseQuery(base index.BrowseQuery) index.BrowseQuery {
	q := base
	for _, g := range f.Genders {
		q.Genders = append(q.Genders, catalog.Gender(g))
	}
	q.Season, q.Time, q.Sort = f.Season, f.Time, f.Sort
	q.Accords = append(slices.Clip(base.Accords), f.Accords...)
	q.Notes = append(slices.Clip(base.Notes), f.Notes...)
	q.Years = index.YearRange{From: f.From, To: f.To}
	if f.MinRating != "" {
		q.MinRating, _ = strconv.ParseFloat(f.MinRating, 64)
	}
	return q
}

// quoted is a value the index's messages quote ("woody").
var quoted = regexp.MustCompile(`"([^"]*)"`)

// browseErrors are the index's refusals of a query (an accord or a note
// it does not know, with its suggestions) in the panel's words.
func browseErrors(err error) []string {
	var pes catalog.ParamErrors
	if !errors.As(err, &pes) {
		var pe *catalog.ParamError
		if !errors.As(err, &pe) {
			return []string{"These filters cannot be read."}
		}
		pes = catalog.ParamErrors{pe}
	}
	labels := map[string]string{"accords": "Accords", "notes": "Notes", "gender": "Gender", "season": "Season",
		"time": "Time of day", "sort": "Sort by", "year": "Year", "minRating": "Rating"}
	out := make([]string, 0, len(pes))
	for _, pe := range pes {
		label := labels[pe.Parameter]
		if label == "" {
			label = pe.Parameter
		}
		msg := quoted.ReplaceAllString(pe.Message, "“$1”")
		if !strings.HasSuffix(msg, "?") {
			msg += "."
		}
		out = append(out, label+": "+strings.ToUpper(msg[:1])+msg[1:])
	}
	return out
}

// query is f as the panel's parameters, in the form's order, unset ones
// absent; with the search's text q and the page (1: none).
func (f filters) query(q string, page int) string {
	var b strings.Builder
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
	}
	year := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	add("q", q)
	add("sort", f.Sort)
	for _, g := range f.Genders {
		add("gender", g)
	}
	add("season", f.Season)
	add("time", f.Time)
	for _, a := range f.Accords {
		add("accords", a)
	}
	for _, n := range f.Notes {
		add("notes", n)
	}
	add("from", year(f.From))
	add("to", year(f.To))
	add("minRating", f.MinRating)
	if page > 1 {
		add("page", strconv.Itoa(page))
	}
	return b.String()
}

// address is the address of page n of the list at path with f and the
// search's text q.
func (f filters) address(path, q string, n int) string {
	if s := f.query(q, n); s != "" {
		return path + "?" + s
	}
	return path
}

// pager is the paging of a filtered list: every link keeps the filters
// and the search's text.
func (f filters) pager(path, q string, page, pages int) web.Pager {
	p := web.Pager{Page: page, Pages: pages}
	if pages <= 1 {
		return p
	}
	plain := web.NewPager(&url.URL{Path: path}, page, pages)
	if plain.Prev != "" {
		p.Prev = f.address(path, q, page-1)
	}
	if plain.Next != "" {
		p.Next = f.address(path, q, page+1)
	}
	for _, l := range plain.Links {
		p.Links = append(p.Links, web.PageLink{N: l.N, Current: l.Current, URL: f.address(path, q, l.N)})
	}
	return p
}

//go:generate go test -tags tplgen -run ^TestFiltersWriterIsGenerated$ -update

// filtersHTML is the panel: templates/_filters.html, written by the Go
// that go generate makes of it (writeFilters, in filters_gen.go), as the
// perfume page is (see perfumeHTML): html/template would spend more on the
// panel's forty-odd choices, each escaped through reflection, than the
// index spends counting them. TestFiltersPanelMatchesTemplate holds the
// two to the same bytes.
func filtersHTML(p *filterPanel) (template.HTML, error) {
	var b strings.Builder
	b.Grow(8 << 10)
	if err := writeFilters(&b, p); err != nil {
		return "", fmt.Errorf("filter panel of %s: %w", p.Action, err)
	}
	return template.HTML(b.String()), nil
}

// filterPanel is what templates/_filters.html shows: the form with the
// choices and their counts, and the chips of the filters chosen.
type filterPanel struct {
	Action, Q               string
	Chosen                  int // filters chosen (the fold's button says how many)
	Sorts, Ratings          []filterOption
	Genders, Seasons, Times []filterOption
	Accords, Notes          []filterOption
	Season, Time            string // the radio groups' choice ("": any)
	From, To                string
	Chips                   []filterChip
	Clear                   string // the list without any filter
	// CountsOf, when set, says which list the counts are of: the search
	// by name, when the page shows a description's list instead.
	CountsOf string
}

// filterOption is one choice: its value, its words, and for the facets
// how many perfumes of the list have it (of the list without the group's
// own choice, for gender, season and time: what choosing it would give).
type filterOption struct {
	Name, Value, Label string
	Count              int
	Counted            bool
	Checked            bool
}

// filterChip is a filter chosen, and the address without it.
type filterChip struct{ Label, URL string }

// facetsShown are the facets the panel shows counts of.
var facetsShown = []string{index.FacetGender, index.FacetSeason, index.FacetTime, index.FacetAccords, index.FacetNotes}

// browseFiltered is a page of base (the page's own list: a brand's, a
// note's, a search's) narrowed and ordered by f, with the facets the
// panel shows. The counts of a group a visitor chose in (gender, season,
// time) are those of the list without that choice, so each says what
// choosing it gives: one more call each, counting that facet only.
func browseFiltered(ix *index.Index, base index.BrowseQuery, f filters, page int) (index.BrowseResult, error) {
	q := f.browseQuery(base)
	q.Facets, q.Page, q.Limit = facetsShown, page, perfumesPerPage
	res, err := ix.Browse(q)
	if err != nil {
		return res, err
	}
	own := func(facet string, clearChoice func(*index.BrowseQuery), set func(*index.Facets, *index.Facets)) error {
		alt := q
		clearChoice(&alt)
		alt.Facets, alt.Page, alt.Limit, alt.Sort = []string{facet}, 1, 1, ""
		other, err := ix.Browse(alt)
		if err == nil {
			set(res.Facets, other.Facets)
		}
		return err
	}
	if len(f.Genders) > 0 {
		err = errors.Join(err, own(index.FacetGender, func(q *index.BrowseQuery) { q.Genders = base.Genders },
			func(to, from *index.Facets) { to.Gender = from.Gender }))
	}
	if f.Season != "" {
		err = errors.Join(err, own(index.FacetSeason, func(q *index.BrowseQuery) { q.Season = base.Season },
			func(to, from *index.Facets) { to.Season = from.Season }))
	}
	if f.Time != "" {
		err = errors.Join(err, own(index.FacetTime, func(q *index.BrowseQuery) { q.Time = base.Time },
			func(to, from *index.Facets) { to.Time = from.Time }))
	}
	return res, err
}

// newPanel is the panel of a list at path (q: the search's text, kept)
// with the facets counted (nil: none, when the address could not be
// read), the fixed filter base (its accords and notes are not choices),
// and the words of the list's order without a sort chosen. refused marks
// an address the page refuses: its facets are base's, and an accord or
// a note chosen that they do not count (unknown, perhaps) is offered only
// as a chip to remove.
func newPanel(path, q string, f filters, facets *index.Facets, base index.BrowseQuery, defaultSort string, refused bool) *filterPanel {
	p := &filterPanel{Action: path, Q: q, Season: f.Season, Time: f.Time, Clear: filters{Sort: f.Sort}.address(path, q, 1)}
	if facets == nil {
		facets = &index.Facets{}
	}
	p.Sorts = []filterOption{{Label: defaultSort, Checked: f.Sort == ""}}
	for _, s := range index.Sorts {
		if s == index.SortPopular && defaultSort == sortLabels[s] {
			continue
		}
		p.Sorts = append(p.Sorts, filterOption{Value: s, Label: sortLabels[s], Checked: f.Sort == s})
	}
	p.Ratings = []filterOption{{Label: "Any rating", Checked: f.MinRating == ""}}
	for _, r := range filterRatings {
		p.Ratings = append(p.Ratings, filterOption{Value: r, Label: r + " and up", Checked: f.MinRating == r})
	}
	fixed := func(name string, counts []index.FacetCount, values []string) []filterOption {
		out := make([]filterOption, 0, len(values))
		for _, v := range values {
			o := filterOption{Name: name, Value: v, Label: capital(v), Checked: slices.Contains([]string{f.Season, f.Time}, v) || slices.Contains(f.Genders, v)}
			for _, c := range counts {
				if c.Value == v {
					o.Count, o.Counted = c.Count, true
				}
			}
			out = append(out, o)
		}
		return out
	}
	p.Genders = fixed("gender", facets.Gender, []string{"feminine", "masculine", "unisex"})
	p.Seasons = fixed("season", facets.Season, filterSeasons)
	p.Times = fixed("time", facets.Time, filterTimes)
	p.Accords = nameOptions("accords", facets.Accords, f.Accords, base.Accords, refused)
	p.Notes = nameOptions("notes", facets.Notes, f.Notes, base.Notes, refused)
	if f.From != 0 {
		p.From = strconv.Itoa(f.From)
	}
	if f.To != 0 {
		p.To = strconv.Itoa(f.To)
	}
	p.Chips = f.chips(path, q)
	p.Chosen = len(p.Chips)
	return p
}

// nameOptions are the accords or notes offered: those chosen first (with
// their counts when the facet has them), then the most common of the
// list up to panelValues, leaving out the page's own (fixed); with
// countedOnly, a chosen name the counts lack is left out too.
func nameOptions(param string, counts []index.FacetCount, chosen, fixed []string, countedOnly bool) []filterOption {
	same := func(a, b string) bool { return strings.EqualFold(a, b) }
	isFixed := func(v string) bool { return slices.ContainsFunc(fixed, func(x string) bool { return same(x, v) }) }
	var out []filterOption
	for _, name := range chosen {
		o := filterOption{Name: param, Value: name, Label: name, Checked: true}
		for _, c := range counts {
			if same(c.Value, name) {
				o.Value, o.Label, o.Count, o.Counted = c.Value, c.Value, c.Count, true
			}
		}
		if o.Counted || !countedOnly {
			out = append(out, o)
		}
	}
	others := 0
	for _, c := range counts {
		if others == panelValues {
			break
		}
		if isFixed(c.Value) || slices.ContainsFunc(chosen, func(x string) bool { return same(x, c.Value) }) {
			continue
		}
		out = append(out, filterOption{Name: param, Value: c.Value, Label: c.Value, Count: c.Count, Counted: true})
		others++
	}
	return out
}

// chips are the filters chosen, each with the address of the list
// without it (the sort kept: it is an order, not a filter).
func (f filters) chips(path, q string) []filterChip {
	var out []filterChip
	add := func(label string, without func(*filters)) {
		g := f
		g.Genders, g.Accords, g.Notes = slices.Clone(f.Genders), slices.Clone(f.Accords), slices.Clone(f.Notes)
		without(&g)
		out = append(out, filterChip{Label: label, URL: g.address(path, q, 1)})
	}
	for _, v := range f.Genders {
		add(capital(v), func(g *filters) { g.Genders = slices.DeleteFunc(g.Genders, func(x string) bool { return x == v }) })
	}
	if f.Season != "" {
		add(capital(f.Season), func(g *filters) { g.Season = "" })
	}
	if f.Time != "" {
		add(capital(f.Time), func(g *filters) { g.Time = "" })
	}
	for _, v := range f.Accords {
		add("Accord: "+v, func(g *filters) { g.Accords = slices.DeleteFunc(g.Accords, func(x string) bool { return x == v }) })
	}
	for _, v := range f.Notes {
		add("Note: "+v, func(g *filters) { g.Notes = slices.DeleteFunc(g.Notes, func(x string) bool { return x == v }) })
	}
	if f.From != 0 {
		add(fmt.Sprintf("From %d", f.From), func(g *filters) { g.From = 0 })
	}
	if f.To != 0 {
		add(fmt.Sprintf("To %d", f.To), func(g *filters) { g.To = 0 })
	}
	if f.MinRating != "" {
		add("Rated "+f.MinRating+" and up", func(g *filters) { g.MinRating = "" })
	}
	return out
}

// capital is s with its first letter in upper case ("winter": "Winter").
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
