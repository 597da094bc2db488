package site

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The taste page (/taste) recommends perfumes from perfumes a visitor
// likes and dislikes. The taste is the address (liked=slug&liked=slug…
// &disliked=slug), so it works as a plain GET form and a shared link
// shows the same; perfumes are added by name through the page's own
// search (like=, dislike=), or with JavaScript by the search suggestions.
// The site keeps nothing: site.js keeps the taste in the browser
// (localStorage) for the perfume pages' "Like this".

// The taste's limits, as the API's recommendations take them.
const (
	maxLiked    = 10
	maxDisliked = 10
	// tasteFound is how many perfumes a name search on the page offers
	// to add; tasteStarters how many popular ones an empty taste offers.
	tasteFound    = 8
	tasteStarters = 12
	// recsPerPage are the recommendations of a page.
	recsPerPage = 12
)

// tastePage is what the taste page shows.
type tastePage struct {
	// Liked and Disliked are the taste, each with the address without it.
	Liked, Disliked []tastePick
	// Keep are the taste's fields, carried by the forms that add to it.
	Keep []tasteField
	// AddLiked and AddDisliked begin the address that adds a perfume
	// (its slug follows): what the suggestions link to.
	AddLiked, AddDisliked string
	// LikeQ and DislikeQ are the names searched to add, and Found what
	// they found, with FoundFor the side it adds to ("liked").
	LikeQ, DislikeQ string
	Found           []tastePick
	FoundFor        string
	// Starters are popular perfumes offered to an empty taste.
	Starters []tastePick
	// Recs are a page of recommendations.
	Recs  []tasteRec
	Pager web.Pager
	// Error says what of the address could not be read.
	Error string
}

// tastePick is a perfume of the taste (Link removes it) or one offered
// to add (Link adds it).
type tastePick struct {
	view.Perfume
	Link string
}

type tasteField struct{ Name, Value string }

// tasteRec is a recommendation with its reasons: "Shares vanilla, tobacco
// with Tobacco Vanille".
type tasteRec struct {
	view.Perfume
	Reasons []string
}

// taste is GET /taste.
func (s *Site) taste(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	page, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	liked, disliked, problems := readTaste(ix, q)
	p := tastePage{LikeQ: strings.TrimSpace(q.Get("like")), DislikeQ: strings.TrimSpace(q.Get("dislike"))}
	if view.TextTooLong(p.LikeQ) || view.TextTooLong(p.DislikeQ) {
		problems = append(problems, fmt.Sprintf("A name to find is at most %d characters.", view.MaxTextLen))
		p.LikeQ, p.DislikeQ = "", ""
	}
	p.Error = strings.Join(problems, " ")
	s.fillTaste(&p, ix, liked, disliked)
	if len(liked) > 0 {
		recs, err := recommend(ix, liked, disliked, page, recsPerPage)
		if err != nil {
			s.web.ServerError(w, r, err)
			return
		}
		if s.pastEnd(w, r, page, recs.Pages) {
			return
		}
		p.Recs = s.tasteRecs(recs)
		p.Pager = web.NewPager(r.URL, page, recs.Pages)
		p.Pager = tastePager(p.Pager, liked, disliked)
	}
	status := http.StatusOK
	if p.Error != "" {
		status = http.StatusBadRequest
	}
	s.pages.Render(w, r, status, "taste", web.Page{
		Title:       title("Build your taste"),
		Description: "Pick perfumes you like and dislike, and get perfumes close to what yours share, with the reasons.",
		Path:        "/taste", NoIndex: len(liked)+len(disliked) > 0,
		Crumbs: []web.Crumb{{Name: "Home", Path: "/"}, {Name: "Your taste", Path: "/taste"}},
		Data:   p,
	})
}

// readTaste reads the taste of an address: the liked and disliked
// perfumes, each once, in the order given, and what could not be read
// (unknown perfumes, too many, one both liked and disliked), which is
// left out.
func readTaste(ix *index.Index, q url.Values) (liked, disliked []*index.Entry, problems []string) {
	var unknown []string
	read := func(param string, most int) []*index.Entry {
		var out []*index.Entry
		for _, slug := range q[param] {
			slug = strings.TrimSpace(slug)
			if slug == "" {
				continue
			}
			e, err := ix.Perfume(slug)
			if errors.Is(err, catalog.ErrNotFound) {
				unknown = append(unknown, "“"+cut(slug)+"”")
				continue
			}
			if err != nil || slices.Contains(out, e) {
				continue
			}
			if len(out) == most {
				problems = append(problems, fmt.Sprintf("A taste holds at most %d perfumes %s: the first %d are kept.", most, param, most))
				break
			}
			out = append(out, e)
		}
		return out
	}
	liked, disliked = read("liked", maxLiked), read("disliked", maxDisliked)
	if len(unknown) > 0 {
		problems = append([]string{fmt.Sprintf("No perfume is known as %s: left out.", joinWords(unknown, "or"))}, problems...)
	}
	kept := disliked[:0]
	for _, e := range disliked {
		if slices.Contains(liked, e) {
			problems = append(problems, fmt.Sprintf("%s is both liked and disliked: it is kept as liked.", e.Name()))
			continue
		}
		kept = append(kept, e)
	}
	return liked, kept, problems
}

// tasteURL is the taste page of liked and disliked.
func tasteURL(liked, disliked []*index.Entry) string {
	v := tasteValues(liked, disliked)
	if len(v) == 0 {
		// An empty taste asked on purpose: the address says so, so that
		// site.js does not bring back the taste kept in the browser.
		return "/taste?liked="
	}
	return "/taste?" + v.Encode()
}

func tasteValues(liked, disliked []*index.Entry) url.Values {
	v := url.Values{}
	for _, e := range liked {
		v.Add("liked", e.Slug())
	}
	for _, e := range disliked {
		v.Add("disliked", e.Slug())
	}
	return v
}

// without returns es less e.
func without(es []*index.Entry, e *index.Entry) []*index.Entry {
	return slices.DeleteFunc(slices.Clone(es), func(x *index.Entry) bool { return x == e })
}

// fillTaste fills what the page shows of the taste: the picks with their
// removal links, the forms' fields, the perfumes found to add or offered
// to start with.
func (s *Site) fillTaste(p *tastePage, ix *index.Index, liked, disliked []*index.Entry) {
	pick := func(e *index.Entry, link string) tastePick {
		return tastePick{Perfume: s.urls.Page(index.Page{Entries: []*index.Entry{e}}).Data[0], Link: link}
	}
	for _, e := range liked {
		p.Liked = append(p.Liked, pick(e, tasteURL(without(liked, e), disliked)))
	}
	for _, e := range disliked {
		p.Disliked = append(p.Disliked, pick(e, tasteURL(liked, without(disliked, e))))
	}
	for _, e := range liked {
		p.Keep = append(p.Keep, tasteField{"liked", e.Slug()})
	}
	for _, e := range disliked {
		p.Keep = append(p.Keep, tasteField{"disliked", e.Slug()})
	}
	prefix := func(param string) string {
		v := tasteValues(liked, disliked).Encode()
		if v != "" {
			v += "&"
		}
		return "/taste?" + v + param + "="
	}
	p.AddLiked, p.AddDisliked = prefix("liked"), prefix("disliked")
	offer := func(es []*index.Entry, param string) []tastePick {
		var out []tastePick
		for _, e := range es {
			if slices.Contains(liked, e) || slices.Contains(disliked, e) {
				continue
			}
			if param == "liked" && len(liked) < maxLiked {
				out = append(out, pick(e, tasteURL(append(slices.Clip(liked), e), disliked)))
			} else if param == "disliked" && len(disliked) < maxDisliked {
				out = append(out, pick(e, tasteURL(liked, append(slices.Clip(disliked), e))))
			}
		}
		return out
	}
	switch {
	case p.LikeQ != "":
		p.Found, p.FoundFor = offer(ix.Perfumes(index.ListQuery{Q: p.LikeQ, Page: 1, Limit: tasteFound}).Entries, "liked"), "liked"
	case p.DislikeQ != "":
		p.Found, p.FoundFor = offer(ix.Perfumes(index.ListQuery{Q: p.DislikeQ, Page: 1, Limit: tasteFound}).Entries, "disliked"), "disliked"
	}
	if len(liked) == 0 {
		p.Starters = offer(ix.Perfumes(index.ListQuery{Page: 1, Limit: tasteStarters}).Entries, "liked")
	}
}

// tasteRecs are the recommendations as the page shows them.
func (s *Site) tasteRecs(recs recommendations) []tasteRec {
	entries := make([]*index.Entry, len(recs.Items))
	for i, it := range recs.Items {
		entries[i] = it.Entry
	}
	perfumes := s.urls.Page(index.Page{Entries: entries}).Data
	out := make([]tasteRec, len(perfumes))
	for i, p := range perfumes {
		out[i] = tasteRec{Perfume: p}
		for _, why := range recs.Items[i].Reasons {
			if len(why.Shared) == 0 {
				out[i].Reasons = append(out[i].Reasons, "Close to "+why.With)
				continue
			}
			out[i].Reasons = append(out[i].Reasons, fmt.Sprintf("Shares %s with %s", strings.Join(why.Shared, ", "), why.With))
		}
	}
	return out
}

// tastePager is the pager of the recommendations with the taste in each
// link (web.NewPager keeps only q and the page).
func tastePager(pg web.Pager, liked, disliked []*index.Entry) web.Pager {
	v := tasteValues(liked, disliked).Encode()
	fix := func(link string) string {
		if link == "" {
			return ""
		}
		if i := strings.IndexByte(link, '?'); i >= 0 {
			return "/taste?" + v + "&" + link[i+1:]
		}
		return "/taste?" + v
	}
	pg.Prev, pg.Next = fix(pg.Prev), fix(pg.Next)
	for i := range pg.Links {
		pg.Links[i].URL = fix(pg.Links[i].URL)
	}
	return pg
}

// tasteForm is a form of the taste page that adds a perfume by name: its
// field (like, dislike), label, the name searched, the address the
// suggestions add by, and the taste's fields it carries.
type tasteForm struct {
	Name, Label, Q, To string
	Keep               []tasteField
}

func newTasteForm(name, label, q, to string, keep []tasteField) tasteForm {
	return tasteForm{Name: name, Label: label, Q: q, To: to, Keep: keep}
}
