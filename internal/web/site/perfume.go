package site

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// perfumePage is what the perfume page shows: the API's detail of the
// perfume (package view), and what the page derives for people.
type perfumePage struct {
	view.Detail
	Picture  string
	Dupes    []view.Dupe
	Seasons  web.BarChart
	DayNight web.BarChart
	Layers   []layer
	// Facts are the label/value rows beside the picture.
	Facts []fact
	// Stars is how much of the five stars the rating fills (starWidth);
	// empty without a rating.
	Stars string
	// NoSimilar says why no similar perfume is listed, when none is, and
	// BrandMore are then other perfumes of its brand, most rated first.
	NoSimilar string
	BrandMore []view.Perfume
}

type layer struct {
	Name  string
	Notes []view.Note
}

// fact is a row of the facts: a value, or a mean vote drawn as a meter
// on its scale (Value then says it in words, as the Markdown twin does).
type fact struct {
	Label, Value, Link string
	Meter              *meter
}

// perfume is GET /perfumes/{slug}. A page asked before is served from the
// page cache (see pageCache); asked again by a visitor of the same kind,
// from its kept rendering.
func (s *Site) perfume(w http.ResponseWriter, r *http.Request, ix *index.Index) {
	slug := r.PathValue("slug")
	if twin, ok := strings.CutSuffix(slug, mdSuffix); ok {
		s.markdownTwin(w, r, "perfume", func() (string, error) { return s.perfumeMarkdown(ix, twin) })
		return
	}
	e, err := ix.Perfume(slug)
	if errors.Is(err, catalog.ErrNotFound) {
		s.web.NotFoundPage(w, r)
		return
	}
	if err != nil {
		s.web.ServerError(w, r, err)
		return
	}
	transparent, now := s.urls.TransparentAvailable(e.ID), time.Now()
	if page, kept, ok := s.cache.get(ix, slug, transparent, now); ok {
		s.pages.RenderKept(w, r, "html", page, kept)
		return
	}
	page, err := s.perfumePage(ix, slug)
	if err != nil {
		s.web.ServerError(w, r, err)
		return
	}
	// A page is rendered for keeping when it is asked again: most of a
	// long tail is asked once, and its renderings would only be garbage.
	s.cache.put(ix, slug, transparent, now, page)
	s.pages.Render(w, r, http.StatusOK, "html", page)
}

// perfumePage renders the page of a perfume: its head, and its content
// as HTML.
func (s *Site) perfumePage(ix *index.Index, slug string) (web.Page, error) {
	p, err := s.perfumeData(ix, slug)
	if err != nil {
		return web.Page{}, err
	}
	page, err := s.perfumeView(p)
	if err != nil {
		return web.Page{}, err
	}
	if page.Data, err = perfumeHTML(p); err != nil {
		return web.Page{}, err
	}
	return page, nil
}

//go:generate go test -tags tplgen -run ^TestPerfumeWriterIsGenerated$ -update

// perfumeHTML is the content of a perfume page: templates/perfume.html,
// written by the Go that go generate makes of it (writePerfume, in
// perfume_gen.go) rather than by html/template, because the perfume page
// is the one every search lands on, and html/template spends most of a
// page made from the index calling its functions and escapers through
// reflection. The generated writer writes the template's bytes, escaped
// where and as html/template escapes them (TestPerfumeContentMatchesTemplate).
func perfumeHTML(p *perfumePage) (template.HTML, error) {
	var b strings.Builder
	b.Grow(16 << 10) // most pages are 11–15 kB
	if err := writePerfume(&b, p); err != nil {
		return "", fmt.Errorf("perfume page %s: %w", p.Slug, err)
	}
	return template.HTML(b.String()), nil
}

// perfumeData gathers a perfume page from the index.
func (s *Site) perfumeData(ix *index.Index, slug string) (*perfumePage, error) {
	e, similar, dupes, err := ix.SimilarAndDupes(slug, similarOnPage, dupesOnPage)
	if err != nil {
		return nil, err
	}
	d := s.urls.Detail(e, similar)
	p := &perfumePage{
		Detail:   d,
		Picture:  picture(d.ImageTransparentAvailable, d.ImageTransparent, d.Image),
		Dupes:    s.urls.DupeItems(dupes),
		Seasons:  seasonChart(d.Seasons),
		DayNight: dayNightChart(d.DayNight),
	}
	for _, l := range []layer{{"Top notes", d.Notes.Top}, {"Middle notes", d.Notes.Middle}, {"Base notes", d.Notes.Base}, {"Notes", d.Notes.Unplaced}} {
		if len(l.Notes) > 0 {
			p.Layers = append(p.Layers, l)
		}
	}
	if len(p.Layers) == 1 && p.Layers[0].Name == "Notes" && len(d.Notes.Unplaced) > 0 {
		p.Layers[0].Name = "Notes (no pyramid given)"
	}
	add := func(label, value, link string) {
		if value != "" {
			p.Facts = append(p.Facts, fact{Label: label, Value: value, Link: link})
		}
	}
	add("Brand", d.Brand, BrandURL(d.BrandSlug))
	if d.Year != nil {
		add("Year", strconv.Itoa(*d.Year), "")
	}
	if d.Concentration != nil {
		add("Concentration", *d.Concentration, "")
	}
	add("Gender", gender(d.Gender), "")
	if d.Family != nil {
		add("Family", *d.Family, "")
	}
	if d.Longevity != nil {
		add("Longevity", web.Decimal(*d.Longevity, 2)+" of 5", "")
		p.Facts[len(p.Facts)-1].Meter = newMeter("longevity", *d.Longevity, longevityWords)
	}
	if d.Sillage != nil {
		add("Sillage", web.Decimal(*d.Sillage, 2)+" of 4", "")
		p.Facts[len(p.Facts)-1].Meter = newMeter("sillage", *d.Sillage, sillageWords)
	}
	if d.PriceTier != nil {
		add("Price tier", *d.PriceTier, "")
	}
	if d.Popularity.Rank > 0 {
		add("Popularity", "#"+web.Thousands(d.Popularity.Rank)+" by number of ratings", "")
	}
	if d.Rating != nil {
		p.Stars = starWidth(*d.Rating)
	}
	if len(p.SimilarPerfumes) == 0 {
		s.noSimilar(ix, e, p)
	}
	return p, nil
}

// noSimilar says why p lists no similar perfume, and finds more of its
// brand instead.
func (s *Site) noSimilar(ix *index.Index, e *index.Entry, p *perfumePage) {
	p.NoSimilar = "No other perfume is close enough to this one in accords and notes."
	if len(p.Accords) == 0 && len(p.Layers) == 0 {
		p.NoSimilar = "Similar perfumes are found by their accords and notes, and none are listed for this one."
	}
	more := ix.Perfumes(index.ListQuery{Brand: e.BrandSlug(), Page: 1, Limit: brandMoreOnPage + 1}).Entries
	more = slices.DeleteFunc(more, func(o *index.Entry) bool { return o == e })
	p.BrandMore = s.urls.Perfumes(more[:min(len(more), brandMoreOnPage)])
}

// perfumeView is the page of p: title, description, canonical path, Open
// Graph and structured data.
func (s *Site) perfumeView(p *perfumePage) (web.Page, error) {
	path := PerfumeURL(p.Slug)
	crumbs := []web.Crumb{{Name: "Home", Path: "/"}, {Name: p.Brand, Path: BrandURL(p.BrandSlug)}, {Name: p.Name, Path: path}}
	ld, err := s.structuredData(p, crumbs)
	if err != nil {
		return web.Page{}, err
	}
	return web.Page{
		Title:       p.Name + " by " + p.Brand + " · Fragrance Data Service",
		Description: summary(p.Description, 300),
		Path:        path,
		OGType:      "product",
		OGImage:     p.Image,
		JSONLD:      ld,
		Crumbs:      crumbs,
		Markdown:    PerfumeMarkdownURL(p.Slug),
		Data:        p,
	}, nil
}

// summary is the start of text, cut at a word before n bytes.
func summary(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return strings.TrimRight(text[:cut], ",;:") + "…"
}

func gender(g string) string {
	switch g {
	case "masculine":
		return "for men"
	case "feminine":
		return "for women"
	case "unisex":
		return "for women and men"
	}
	return g
}
