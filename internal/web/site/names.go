package site

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The lists of names: brands (the best known first, with an A–Z index and
// a filter box), perfumers, notes (grouped, with a filter box) and
// accords (in their colours, the rare ones left out). Each filter is a
// GET form, so it works without JavaScript; the site's script filters as
// the visitor types by asking the same page.

// nameList is a page of names with counts.
type nameList struct {
	Heading, Intro string
	// Status says how many names the page lists, or what to try when a
	// filter finds none.
	Status string
	Items  []nameLink
	Pager  web.Pager
	// Filter is the list's filter box; Letters the A–Z index of the
	// brands; Groups the sections of the notes (Items is then empty).
	Filter  *filterBox
	Letters []letterLink
	Groups  []nameGroup
}

type nameLink struct {
	Name, URL string
	Count     int
	Color     string // an accord's colour
}

// filterBox is a list's filter: a GET form of one field, q.
type filterBox struct {
	Action, Label, Placeholder, Q string
}

// letterLink is a letter of the brands' A–Z index; Empty when no brand
// starts with it.
type letterLink struct {
	Label, URL     string
	Current, Empty bool
}

// nameGroup is a section of a grouped list: its first names, and where
// all of them are (More) when it shows only the first.
type nameGroup struct {
	ID, Name string
	Items    []nameLink
	Total    int
	More     string
}

// The lists' sizes.
const (
	// groupOnList is the most names of a group the notes list shows.
	groupOnList = 24
	// minAccordUses is how many perfumes an accord needs to be listed:
	// rarer ones ("brown scotch tape", "wet plaster") are left out of
	// the lists, not out of their perfumes.
	minAccordUses = 5
)

func links(cs []index.Count, link func(index.Count) string) []nameLink {
	out := make([]nameLink, len(cs))
	for i, c := range cs {
		out[i] = nameLink{Name: c.Name, URL: link(c), Count: c.Count, Color: c.Color}
	}
	return out
}

// brands is GET /brands: the best known first (their perfumes' ratings),
// paged; ?letter=d those starting with D, by name; ?q= those matching a
// filter (the brand search of the API).
func (s *Site) brands(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	lists := s.lists.of(ix)
	q, letter := r.URL.Query().Get("q"), r.URL.Query().Get("letter")
	l := nameList{Heading: "Brands", Filter: &filterBox{Action: "/brands", Label: "Filter brands", Placeholder: "Brand name, e.g. chanel", Q: q}}
	l.Letters = lists.letterLinks(letter)
	link := func(c index.Count) string { return BrandURL(c.Slug) }
	var all []index.Count
	np := listPage("/brands", "/brands", "Brands", "")
	switch {
	case q != "":
		all = ix.Brands(q)
		np = listPage("/brands?q="+url.QueryEscape(q), "/brands", "Brands", "“"+q+"”")
		np.noIndex = true
		l.Intro = fmt.Sprintf("Brands whose name matches “%s”, those with the most perfumes first.", q)
		l.Status = countText(len(all), "brand", "brands")
		if len(all) == 0 {
			l.Status = fmt.Sprintf("No brand matches “%s”. Check the spelling, try fewer letters, or pick a letter above.", q)
		}
	case letter != "":
		var ok bool
		if all, ok = lists.brandLetters[letter]; !ok {
			s.web.NotFoundPage(w, r)
			return
		}
		np = listPage("/brands?letter="+letter, "/brands", "Brands", letterLabel(letter), "letter")
		l.Intro = fmt.Sprintf("Brands starting with %s, by name.", letterLabel(letter))
		l.Status = countText(len(all), "brand", "brands")
	default:
		all = ix.BrandsByRatings(0)
		l.Intro = "Every brand of the catalogue, the best known first: by how often their perfumes are rated. Beside each, its number of perfumes."
		l.Status = countText(len(all), "brand", "brands")
	}
	s.names(w, r, np, l, all, link)
}

// perfumers is GET /perfumers.
func (s *Site) perfumers(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	all := ix.Perfumers()
	s.names(w, r, listPage("/perfumers", "/perfumers", "Perfumers", ""), nameList{Heading: "Perfumers", Intro: "The noses behind the perfumes, by number of perfumes.",
		Status: countText(len(all), "perfumer", "perfumers")}, all, func(c index.Count) string { return PerfumerURL(c.Slug) })
}

// notes is GET /notes: the notes in groups (citrus, flowers, woods …),
// each with its most used first; ?group=citrus one group whole, paged;
// ?q= the notes whose name has words starting as the filter's do.
func (s *Site) notes(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	lists := s.lists.of(ix)
	q, group := r.URL.Query().Get("q"), r.URL.Query().Get("group")
	l := nameList{Heading: "Notes", Filter: &filterBox{Action: "/notes", Label: "Filter notes", Placeholder: "Note, e.g. vanilla", Q: q}}
	switch {
	case q != "":
		s.notesMatching(w, r, lists, l, q)
	case group != "":
		s.noteGroup(w, r, lists, l, group)
	default:
		s.noteGroups(w, r, lists, l)
	}
}

func noteLink(c index.Count) string { return NoteURL(c.Name) }

// notesMatching is /notes?q=: the notes the filter q finds.
func (s *Site) notesMatching(w http.ResponseWriter, r *http.Request, lists *catalogueLists, l nameList, q string) {
	all := filterNames(lists.notes, q)
	l.Intro = fmt.Sprintf("Notes whose name matches “%s”, the most used first.", q)
	l.Status = countText(len(all), "note", "notes")
	if len(all) == 0 {
		l.Status = fmt.Sprintf("No note matches “%s”. Check the spelling, or try the start of a word (“sandal”, “pepper”).", q)
	}
	np := listPage("/notes?q="+url.QueryEscape(q), "/notes", "Notes", "“"+q+"”")
	np.noIndex = true
	s.names(w, r, np, l, all, noteLink)
}

// noteGroup is /notes?group=: every note of a group.
func (s *Site) noteGroup(w http.ResponseWriter, r *http.Request, lists *catalogueLists, l nameList, id string) {
	g, ok := lists.noteGroup(id)
	if !ok {
		s.web.NotFoundPage(w, r)
		return
	}
	l.Heading = g.Name
	l.Intro = fmt.Sprintf("Every note of the group %s, the most used first.", strings.ToLower(g.Name))
	l.Status = countText(len(g.notes), "note", "notes")
	s.names(w, r, listPage("/notes?group="+g.ID, "/notes", "Notes", g.Name, "group"), l, g.notes, noteLink)
}

// noteGroups is /notes: each group with its most used notes.
func (s *Site) noteGroups(w http.ResponseWriter, r *http.Request, lists *catalogueLists, l nameList) {
	l.Intro = "Every note of the catalogue, in groups, the most used of each first."
	l.Status = countText(len(lists.notes), "note", "notes") + fmt.Sprintf(" in %d groups", len(lists.noteGroups))
	for _, g := range lists.noteGroups {
		ng := nameGroup{ID: g.ID, Name: g.Name, Items: links(g.notes[:min(groupOnList, len(g.notes))], noteLink), Total: len(g.notes)}
		if ng.Total > len(ng.Items) {
			ng.More = "/notes?group=" + g.ID
		}
		l.Groups = append(l.Groups, ng)
	}
	s.names(w, r, listPage("/notes", "/notes", "Notes", ""), l, nil, noteLink)
}

// accords is GET /accords: the accords in their colours, the most used
// first; the rare ones are left out (their pages stay).
func (s *Site) accords(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	lists := s.lists.of(ix)
	intro := "Every accord of the catalogue in its colour, by the number of perfumes that have it."
	if lists.rareAccords > 0 {
		intro += fmt.Sprintf(" The %d accords of fewer than %d perfumes are left out; their perfumes still show them.", lists.rareAccords, minAccordUses)
	}
	s.names(w, r, listPage("/accords", "/accords", "Accords", ""), nameList{Heading: "Accords", Intro: intro, Status: countText(len(lists.accords), "accord", "accords")},
		lists.accords, func(c index.Count) string { return AccordURL(c.Name) })
}

// namesPage is where a list of names is and what of its address its
// pager keeps.
type namesPage struct {
	// path is the canonical address of the list's first page
	// ("/brands?letter=d"); noIndex marks a filter's answer, which has
	// none.
	path    string
	noIndex bool
	crumbs  []web.Crumb
	keep    []string
}

// listPage is the namesPage of the list at path in the section at
// section, named sectionName in the breadcrumbs; a list that is not the
// section's own (a letter, a group, a filter) follows it there as name.
func listPage(path, section, sectionName, name string, keep ...string) namesPage {
	crumbs := []web.Crumb{{Name: "Home", Path: "/"}, {Name: sectionName, Path: section}}
	if path != section {
		crumbs = append(crumbs, web.Crumb{Name: name, Path: path})
	}
	return namesPage{path: path, crumbs: crumbs, keep: keep}
}

// names renders one page of the list l of all, paged (a grouped list has
// no all).
func (s *Site) names(w http.ResponseWriter, r *http.Request, np namesPage, l nameList, all []index.Count, link func(index.Count) string) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	pages := (len(all) + namesPerPage - 1) / namesPerPage
	if s.pastEnd(w, r, page, pages) {
		return
	}
	from := min((page-1)*namesPerPage, len(all))
	l.Items = links(all[from:min(from+namesPerPage, len(all))], link)
	l.Pager = web.NewPager(r.URL, page, pages, np.keep...)
	t := title(l.Heading)
	if page > 1 {
		t = title(l.Heading, fmt.Sprintf("page %d", page))
	}
	canonical := pagePath(np.path, page)
	if strings.Contains(np.path, "?") && page > 1 {
		canonical = fmt.Sprintf("%s&page=%d", np.path, page)
	}
	if np.noIndex {
		canonical = ""
	}
	s.pages.Render(w, r, http.StatusOK, "names", web.Page{
		Title: t, Description: l.Intro, Path: canonical, NoIndex: np.noIndex, Crumbs: np.crumbs, Data: l,
	})
}

// countText is "1 brand" or "2,569 brands".
func countText(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return web.Thousands(n) + " " + many
}
