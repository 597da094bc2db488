package site

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
// ranking as /api/perfumes?q=), a page of results.
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
	data := searchData{Q: q}
	if q != "" {
		rd, msg := s.readSearch(ix, r.URL, q, page)
		if msg != "" {
			s.pages.Render(w, r, http.StatusBadRequest, "search", web.Page{Title: title("Search"), NoIndex: true, Data: searchData{Q: q, Error: msg}})
			return
		}
		data.Reading = rd
		if rd != nil && rd.First {
			if s.pastEnd(w, r, page, rd.Pager.Pages) {
				return
			}
		} else {
			pg := ix.Perfumes(index.ListQuery{Q: q, Page: page, Limit: perfumesPerPage})
			if s.pastEnd(w, r, page, pg.Pages) {
				return
			}
			data.Items, data.Total = rd.splitNames(q, pg.Entries, s.urls.Page(pg).Data), pg.Total
			data.Pager = web.NewPager(r.URL, page, pg.Pages)
		}
	}
	t := title("Search")
	if q != "" {
		t = title("“"+q+"”", "Search")
	}
	s.pages.Render(w, r, http.StatusOK, "search", web.Page{Title: t, NoIndex: true, HideSearch: true, Data: data})
}

type searchData struct {
	Q, Error string
	Items    []view.Perfume
	Total    int
	Pager    web.Pager
	// Reading is the query read as a description (reading.go); nil
	// when it is read as a name only.
	Reading *searchReading
}

// brand is GET /brands/{slug}: a brand's perfumes, most rated first.
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
	pg := ix.Perfumes(index.ListQuery{Brand: slug, Page: page, Limit: perfumesPerPage})
	s.perfumes(w, r, pg, BrandURL(slug), "Brands", "/brands", name,
		fmt.Sprintf("%s perfumes by %s, most rated first.", web.Thousands(pg.Total), name), "", BrandMarkdownURL(slug))
}

// perfumer is GET /perfumers/{slug}.
func (s *Site) perfumer(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	c, pg, err := ix.Perfumer(r.PathValue("slug"), page, perfumesPerPage)
	if errors.Is(err, catalog.ErrNotFound) {
		s.web.NotFoundPage(w, r)
		return
	}
	s.perfumes(w, r, pg, PerfumerURL(c.Slug), "Perfumers", "/perfumers", c.Name,
		fmt.Sprintf("%s perfumes composed by %s, most rated first.", web.Thousands(pg.Total), c.Name), "", "")
}

// note is GET /notes/{name}: the perfumes with a note, most rated first.
func (s *Site) note(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	res, err := ix.Match(index.MatchQuery{Notes: []string{r.PathValue("name")}, Page: page, Limit: perfumesPerPage})
	if err != nil || len(res.Notes) != 1 {
		s.web.NotFoundPage(w, r)
		return
	}
	name := res.Notes[0]
	if s.redirectCanonical(w, r, NoteURL(name)) {
		return
	}
	s.perfumes(w, r, s.scoredPage(res), NoteURL(name), "Notes", "/notes", name,
		fmt.Sprintf("%s perfumes with %s in their notes, most rated first.", web.Thousands(res.Total), name), "", "")
}

// accord is GET /accords/{name}: the perfumes with an accord, those where
// it is strongest first.
func (s *Site) accord(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	res, err := ix.Match(index.MatchQuery{Accords: []index.AccordWant{{Name: r.PathValue("name"), Strength: 100}}, Page: page, Limit: perfumesPerPage})
	if err != nil || len(res.Accords) != 1 {
		s.web.NotFoundPage(w, r)
		return
	}
	name := res.Accords[0].Name
	if s.redirectCanonical(w, r, AccordURL(name)) {
		return
	}
	s.perfumes(w, r, s.scoredPage(res), AccordURL(name), "Accords", "/accords", name,
		fmt.Sprintf("%s perfumes with the %s accord, those where it is strongest first.", web.Thousands(res.Total), name),
		s.urls.AccordColor(name), "")
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

// perfumes renders one page of perfume cards.
func (s *Site) perfumes(w http.ResponseWriter, r *http.Request, pg index.Page, path, section, sectionPath, name, intro, color, twin string) {
	if s.pastEnd(w, r, pg.Page, pg.Pages) {
		return
	}
	t := title(name, section)
	if pg.Page > 1 {
		t = title(name, fmt.Sprintf("page %d", pg.Page), section)
	}
	s.pages.Render(w, r, http.StatusOK, "perfumes", web.Page{
		Title: t, Description: intro, Path: pagePath(path, pg.Page), Markdown: twin,
		Crumbs: []web.Crumb{{Name: "Home", Path: "/"}, {Name: section, Path: sectionPath}, {Name: name, Path: path}},
		Data: perfumeList{Heading: name, Intro: intro, Color: color, Items: s.urls.Page(pg).Data, Total: pg.Total,
			Pager: web.NewPager(&url.URL{Path: path, RawQuery: r.URL.RawQuery}, pg.Page, pg.Pages)},
	})
}
