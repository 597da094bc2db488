package site

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// perfumeList is a page of perfume cards (a brand's, a perfumer's, a
// note's, an accord's perfumes).
type perfumeList struct {
	Heading, Intro string
	Color          string // an accord's colour, for its swatch
	Items          []view.Perfume
	Total          int
	Pager          web.Pager
	// Panel is the filter panel (empty: the list has none); Errors the
	// filters of the address it refuses; Filtered: filters were chosen.
	Panel    template.HTML
	Errors   []string
	Filtered bool
}

// home is GET /.
func (s *Site) home(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	popular := ix.Perfumes(index.ListQuery{Page: 1, Limit: 12})
	brands := ix.BrandsByRatings(24)
	notes, _ := ix.Notes(24)
	accords := s.lists.of(ix).accords
	data := struct {
		Count                  int
		Popular                []view.Perfume
		Brands, Notes, Accords []nameLink
	}{
		Count:   ix.Len(),
		Popular: s.urls.Page(popular).Data,
		Brands:  links(brands, func(c index.Count) string { return BrandURL(c.Slug) }),
		Notes:   links(notes, func(c index.Count) string { return NoteURL(c.Name) }),
		Accords: links(accords[:min(24, len(accords))], func(c index.Count) string { return AccordURL(c.Name) }),
	}
	s.pages.Render(w, r, http.StatusOK, "home", web.Page{
		Title:       "Fragrance Data Service · perfumes, notes, accords and cheaper alternatives",
		Description: fmt.Sprintf("Search %s perfumes: notes, accords, seasons, ratings, similar perfumes and cheaper alternatives, from the Fragrantica community's votes.", web.Thousands(ix.Len())),
		Path:        "/",
		HideSearch:  true,
		Data:        data,
	})
}

// search is GET /search?q=&page=: the API's search (the same index and
// ranking as /api/perfumes?q=), a page of results, narrowed and ordered by
// the filter panel; with filters and no text, the filtered catalogue.
func (s *Site) search(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	q := r.URL.Query().Get("q")
	if view.TextTooLong(q) {
		s.pages.Render(w, r, http.StatusBadRequest, "search", web.Page{
			Title: title("Search"), NoIndex: true,
			Data: searchData{Q: q, Error: fmt.Sprintf("The search is too long: at most %d characters.", view.MaxTextLen)},
		})
		return
	}
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	base := index.BrowseQuery{Q: q}
	l := s.filteredList(ix, r, base, page, "/search", q, "")
	data := searchData{Q: q, Errors: l.errs}
	status := http.StatusOK
	switch {
	case l.errs != nil:
		status = http.StatusBadRequest
	case q != "" && !l.filters.any():
		// A text alone may read as a description (reading.go): its
		// reading leads, or follows the names that name it well.
		rd, msg := s.readSearch(ix, r.URL, q, page)
		if msg != "" {
			status, data.Error = http.StatusBadRequest, msg
			break
		}
		data.Reading, data.Listed = rd, true
		if rd != nil && rd.First {
			if s.pastEnd(w, r, page, rd.Pager.Pages) {
				return
			}
			// The panel counts and narrows the search by name, not the
			// description's list shown: it says so.
			l.p.CountsOf = countsOfNames(q, rd.Names)
			break
		}
		if s.pastEnd(w, r, page, l.res.Pages) {
			return
		}
		data.Items, data.Total = resultItems(rd.splitNames(q, l.res.Page.Entries, s.urls.Page(l.res.Page).Data)), l.res.Total
		data.Pager = l.filters.pager("/search", q, page, l.res.Pages)
	case q != "" || l.filters.any():
		if s.pastEnd(w, r, page, l.res.Pages) {
			return
		}
		data.Listed, data.Filtered = true, l.filters.any()
		data.Items, data.Total = resultItems(s.urls.Page(l.res.Page).Data), l.res.Total
		data.Pager = l.filters.pager("/search", q, page, l.res.Pages)
	}
	panel, err := filtersHTML(l.p)
	if err != nil {
		s.web.ServerError(w, r, err)
		return
	}
	data.Panel = panel
	t := title("Search")
	if q != "" {
		t = title("“"+q+"”", "Search")
	}
	s.pages.Render(w, r, status, "search", web.Page{Title: t, NoIndex: true, HideSearch: true, Data: data})
}

type searchData struct {
	Q, Error string
	// Errors are the filters the address holds that the panel refuses.
	Errors []string
	// Listed: results are shown (a text or filters were given); Filtered:
	// filters were.
	Listed, Filtered bool
	Items            []resultItem
	Total            int
	Pager            web.Pager
	Panel            template.HTML // the filter panel
	// Reading is the query read as a description (reading.go); nil
	// when it is read as a name only.
	Reading *searchReading
}

// filteredList is a list narrowed by the panel's filters: the page asked
// with its facets, or the problems of the address.
type filteredList struct {
	filters filters
	res     index.BrowseResult
	p       *filterPanel // the filter panel, written by filtersHTML
	errs    []string
}

// filteredList reads the filters of r and browses base (the page's own
// list) with them; own is the words of the page's own order where it has
// one (the accord's, strongest first), which holds without filters only.
// When the address cannot be read, the result and the panel's counts are
// base's alone.
func (s *Site) filteredList(ix *index.Index, r *http.Request, base index.BrowseQuery, page int, path, q, own string) filteredList {
	f, errs := parseFilters(r.URL.Query())
	l := filteredList{filters: f}
	defaultSort := sortLabels[index.SortPopular]
	switch {
	case q != "":
		defaultSort = "Relevance"
	case own != "" && !f.any():
		defaultSort = own
	}
	res, err := browseFiltered(ix, base, f, page)
	if err != nil {
		errs = append(errs, browseErrors(err)...)
	}
	if len(errs) == 0 {
		l.res, l.p = res, newPanel(path, q, f, res.Facets, base, defaultSort, false)
		return l
	}
	l.errs = errs
	whole := base
	whole.Facets, whole.Page, whole.Limit = facetsShown, 1, 1
	l.res, _ = ix.Browse(whole)
	l.p = newPanel(path, q, f, l.res.Facets, base, defaultSort, true)
	return l
}

// brand is GET /brands/{slug}: a brand's perfumes, most rated first,
// narrowed by the filter panel.
func (s *Site) brand(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	slug := r.PathValue("slug")
	if twin, ok := strings.CutSuffix(slug, mdSuffix); ok {
		s.markdownTwin(w, r, "brand", func() (string, error) { return s.brandMarkdown(ix, twin) })
		return
	}
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	first := ix.Perfumes(index.ListQuery{Brand: slug, Page: 1, Limit: 1})
	if first.Total == 0 {
		s.web.NotFoundPage(w, r)
		return
	}
	if s.redirectCanonical(w, r, BrandURL(first.Entries[0].BrandSlug())) {
		return
	}
	name := first.Entries[0].Brand()
	s.filteredPerfumes(w, r, ix, page, filteredPage{
		path: BrandURL(slug), section: "Brands", sectionPath: "/brands", name: name, twin: BrandMarkdownURL(slug),
		base:  index.BrowseQuery{Brand: slug},
		intro: "by " + name,
	})
}

// perfumer is GET /perfumers/{slug}: a perfumer's perfumes, most rated
// first, narrowed by the filter panel.
func (s *Site) perfumer(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	c, _, err := ix.Perfumer(r.PathValue("slug"), 1, 1)
	if errors.Is(err, catalog.ErrNotFound) {
		s.web.NotFoundPage(w, r)
		return
	}
	s.filteredPerfumes(w, r, ix, page, filteredPage{
		path: PerfumerURL(c.Slug), section: "Perfumers", sectionPath: "/perfumers", name: c.Name,
		base:  index.BrowseQuery{Perfumer: c.Slug},
		intro: "composed by " + c.Name,
	})
}

// note is GET /notes/{name}: the perfumes with a note, most rated first,
// narrowed by the filter panel.
func (s *Site) note(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	res, err := ix.Match(index.MatchQuery{Notes: []string{r.PathValue("name")}, Page: 1, Limit: 1})
	if err != nil || len(res.Notes) != 1 {
		s.web.NotFoundPage(w, r)
		return
	}
	name := res.Notes[0]
	if s.redirectCanonical(w, r, NoteURL(name)) {
		return
	}
	s.filteredPerfumes(w, r, ix, page, filteredPage{
		path: NoteURL(name), section: "Notes", sectionPath: "/notes", name: name,
		base:  index.BrowseQuery{Notes: []string{name}},
		intro: "with " + name + " in their notes",
	})
}

// accord is GET /accords/{name}: the perfumes with an accord, those where
// it is strongest first; narrowed by the filter panel or sorted, in the
// order chosen (most rated first by default).
func (s *Site) accord(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	want := []index.AccordWant{{Name: r.PathValue("name"), Strength: 100}}
	res, err := ix.Match(index.MatchQuery{Accords: want, Page: 1, Limit: 1})
	if err != nil || len(res.Accords) != 1 {
		s.web.NotFoundPage(w, r)
		return
	}
	name := res.Accords[0].Name
	if s.redirectCanonical(w, r, AccordURL(name)) {
		return
	}
	s.filteredPerfumes(w, r, ix, page, filteredPage{
		path: AccordURL(name), section: "Accords", sectionPath: "/accords", name: name, color: s.urls.AccordColor(name),
		base:  index.BrowseQuery{Accords: []string{name}},
		intro: "with the " + name + " accord",
		own: &ownOrder{words: "those where it is strongest first", label: "Strongest accord first", page: func(page int) index.Page {
			res, _ := ix.Match(index.MatchQuery{Accords: want, Page: page, Limit: perfumesPerPage})
			return s.scoredPage(res)
		}},
	})
}

// redirectCanonical sends a note or accord page asked by another spelling
// ("Pink Pepper", "pink%20pepper") to its canonical path, keeping the query.
func (s *Site) redirectCanonical(w http.ResponseWriter, r *http.Request, path string) bool {
	if r.URL.EscapedPath() == path {
		return false
	}
	target := path
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
	return true
}

// scoredPage is a page of match results as a page of the index.
func (s *Site) scoredPage(res index.MatchResult) index.Page {
	pg := index.Page{Entries: make([]*index.Entry, len(res.Items)), Total: res.Total, Page: res.Page, Pages: res.Pages, Limit: res.Limit}
	for i, it := range res.Items {
		pg.Entries[i] = it.Entry
	}
	return pg
}

// filteredPage is a brand's, a perfumer's, a note's or an accord's list with the filter
// panel: base is the page's own filter, intro what the list's perfumes
// share ("by Chanel"), said above the cards after their number.
type filteredPage struct {
	path, section, sectionPath, name, color, twin, intro string
	base                                                 index.BrowseQuery
	own                                                  *ownOrder
}

// introduce is the sentence above a filtered page's cards: how many
// perfumes, what they share, whether the filters narrowed them (so a
// count smaller than the brand's is not read as all of it) and their order.
// With none left, or no list shown (order empty), there is no order to
// name.
func (lp filteredPage) introduce(total int, filtered bool, order string) string {
	if total == 0 && filtered {
		return "No perfume " + lp.intro + " matches the filters."
	}
	noun, verb := "perfumes", "match"
	if total == 1 {
		noun, verb = "perfume", "matches"
	}
	s := web.Thousands(total) + " " + noun + " " + lp.intro
	if filtered {
		s += " " + verb + " the filters"
	}
	if order == "" {
		return s + "."
	}
	return s + ", " + order + "."
}

// ownOrder is a list's own order, shown without filters or a sort.
type ownOrder struct {
	words, label string
	page         func(page int) index.Page
}

// sortWords are the words of each order in a list's introduction.
var sortWords = map[string]string{
	index.SortPopular: "most rated first", index.SortRating: "best rated first", index.SortNewest: "newest first",
	index.SortOldest: "oldest first", index.SortName: "by name",
}

// filteredPerfumes renders one page of a list narrowed by the filter
// panel; an address the panel cannot read is the page with its problems
// (400), the panel, and no cards.
func (s *Site) filteredPerfumes(w http.ResponseWriter, r *http.Request, ix *index.Index, page int, lp filteredPage) {
	own := ""
	if lp.own != nil {
		own = lp.own.label
	}
	l := s.filteredList(ix, r, lp.base, page, lp.path, "", own)
	panel, err := filtersHTML(l.p)
	if err != nil {
		s.web.ServerError(w, r, err)
		return
	}
	pg, order := l.res.Page, sortWords[cmp.Or(l.filters.Sort, index.SortPopular)]
	if l.errs == nil && lp.own != nil && !l.filters.any() {
		pg, order = lp.own.page(page), lp.own.words
	}
	data := perfumeList{Heading: lp.name, Color: lp.color, Panel: panel, Errors: l.errs, Filtered: l.filters.any()}
	status := http.StatusOK
	t := title(lp.name, lp.section)
	if l.errs != nil {
		// The filters could not be read, so the count is the whole list's,
		// and no list is shown to have an order.
		status, data.Intro = http.StatusBadRequest, lp.introduce(l.res.Total, false, "")
	} else {
		if s.pastEnd(w, r, page, pg.Pages) {
			return
		}
		data.Intro, data.Items, data.Total = lp.introduce(pg.Total, data.Filtered, order), s.urls.Page(pg).Data, pg.Total
		data.Pager = l.filters.pager(lp.path, "", pg.Page, pg.Pages)
		if pg.Page > 1 {
			t = title(lp.name, fmt.Sprintf("page %d", pg.Page), lp.section)
		}
	}
	s.pages.Render(w, r, status, "perfumes", web.Page{
		Title: t, Description: data.Intro, Path: pagePath(lp.path, pg.Page), Markdown: lp.twin, NoIndex: data.Filtered || status != http.StatusOK,
		Crumbs: []web.Crumb{{Name: "Home", Path: "/"}, {Name: lp.section, Path: lp.sectionPath}, {Name: lp.name, Path: lp.path}},
		Data:   data,
	})
}

// countsOfNames is what the filter panel's counts are of on a search
// shown as a description: the n perfumes the search by name finds.
func countsOfNames(q string, n int) string {
	if n == 0 {
		return "No perfume is named like “" + q + "”: the counts and the filters are of the search by name, not of the description’s list."
	}
	s := "s"
	if n == 1 {
		s = ""
	}
	return "The counts are of the " + web.Thousands(n) + " perfume" + s + " named like “" + q + "”, not of the description’s list: the filters narrow the search by name."
}
