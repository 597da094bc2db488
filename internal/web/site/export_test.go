package site

import (
	"sync"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// PerfumeContents renders the content of the perfume page of slug as the
// page does, with the writer generated from templates/perfume.html (got),
// and by executing that template with html/template, over the layout and
// the area's partials as every page is (want). With hostile set, the
// page's every text is first replaced by the hostile strings in turn, and
// its numbers by awkward ones.
func (s *Site) PerfumeContents(ix *index.Index, slug string, hostile []string) (got, want string, err error) {
	p, err := s.perfumeData(ix, slug)
	if err != nil {
		return "", "", err
	}
	if len(hostile) > 0 {
		spoil(p, hostile)
	}
	tpl, err := s.perfumeTemplate()
	if err != nil {
		return "", "", err
	}
	content, err := tpl.Content("perfume", web.Page{Data: p})
	if err != nil {
		return "", "", err
	}
	written, err := perfumeHTML(p)
	if err != nil {
		return "", "", err
	}
	return string(written), string(content), nil
}

// PerfumeMarkdownSpoiled is the Markdown twin of the perfume slug with
// its every text replaced by the hostile strings in turn (see spoil).
func (s *Site) PerfumeMarkdownSpoiled(ix *index.Index, slug string, hostile []string) (string, error) {
	p, err := s.perfumeData(ix, slug)
	if err != nil {
		return "", err
	}
	spoil(p, hostile)
	return s.perfumeText(p), nil
}

// PerfumeContentWriters gathers the perfume pages of slugs from ix, as a
// page made from the index does before its content, and returns two
// writers of page i's content: the generated writer the site uses, and
// html/template executing templates/perfume.html. Each returns the
// length of what it wrote.
func (s *Site) PerfumeContentWriters(ix *index.Index, slugs []string) (generated, executed func(i int) (int, error), err error) {
	pages := make([]*perfumePage, len(slugs))
	for i, slug := range slugs {
		if pages[i], err = s.perfumeData(ix, slug); err != nil {
			return nil, nil, err
		}
	}
	tpl, err := s.perfumeTemplate()
	if err != nil {
		return nil, nil, err
	}
	generated = func(i int) (int, error) {
		h, err := perfumeHTML(pages[i%len(pages)])
		return len(h), err
	}
	executed = func(i int) (int, error) {
		h, err := tpl.Content("perfume", web.Page{Data: pages[i%len(pages)]})
		return len(h), err
	}
	return generated, executed, nil
}

var (
	perfumeMu   sync.Mutex
	perfumeTpls = map[*Site]*web.Templates{}
)

// perfumeTemplate parses the perfume page's template once per site, as
// the site parses its other pages.
func (s *Site) perfumeTemplate() (*web.Templates, error) {
	perfumeMu.Lock()
	defer perfumeMu.Unlock()
	if t, ok := perfumeTpls[s]; ok {
		return t, nil
	}
	t, err := s.web.Templates(templateFS, funcs(), "perfume")
	if err != nil {
		return nil, err
	}
	perfumeTpls[s] = t
	return t, nil
}

// spoil replaces every text of p by the hostile strings, taken in turn.
func spoil(p *perfumePage, hostile []string) {
	i := 0
	next := func() string { i++; return hostile[i%len(hostile)] }
	awkward := []float64{1e21, 0.1 + 0.2, 0, 100, 1.0 / 3, 1e-7}
	set := func(ss ...*string) {
		for _, s := range ss {
			*s = next()
		}
	}
	set(&p.Name, &p.Brand, &p.BrandSlug, &p.Picture, &p.BuyURL, &p.Description)
	if p.Concentration != nil {
		c := next()
		p.Concentration = &c
	}
	for j := range p.Facts {
		set(&p.Facts[j].Label, &p.Facts[j].Value, &p.Facts[j].Link)
	}
	for j := range p.Perfumers {
		set(&p.Perfumers[j].Name, &p.Perfumers[j].Slug)
	}
	for j := range p.Accords {
		a := &p.Accords[j]
		set(&a.Name, &a.Color)
		a.Strength = awkward[j%len(awkward)]
	}
	for j := range p.Layers {
		set(&p.Layers[j].Name)
		for k := range p.Layers[j].Notes {
			set(&p.Layers[j].Notes[k].Name)
		}
	}
	for j := range p.SimilarPerfumes {
		sp := &p.SimilarPerfumes[j]
		set(&sp.Slug, &sp.Name, &sp.Brand, &sp.Image, &sp.ImageTransparent)
		sp.ImageTransparentAvailable = j%2 == 0
		sp.MatchScore = awkward[j%len(awkward)]
	}
	for j := range p.Dupes {
		d := &p.Dupes[j]
		set(&d.Slug, &d.Name, &d.Brand, &d.Image, &d.ImageTransparent, &d.PriceTier)
		d.ImageTransparentAvailable = j%2 == 1
		if j%2 == 0 {
			d.Rating = nil
		}
	}
	if p.Rating != nil {
		r := 4.005
		p.Rating, p.RatingCount = &r, 1
	}
	if p.Year != nil {
		y := 0
		p.Year = &y
	}
	// The readings and the brand's perfumes, after the texts above so
	// that those take the hostile strings they always took.
	for j := range p.Facts {
		if m := p.Facts[j].Meter; m != nil {
			set(&m.ID, &m.Word)
			for k := range m.Steps {
				set(&m.Steps[k].Word)
			}
			m.Value, m.Fill = awkward[j%len(awkward)], awkward[(j+1)%len(awkward)]
		}
	}
	set(&p.Stars, &p.NoSimilar)
	for j := range p.BrandMore {
		b := &p.BrandMore[j]
		set(&b.Slug, &b.Name, &b.Brand, &b.Image, &b.ImageTransparent)
		b.ImageTransparentAvailable = j%2 == 0
		b.RatingCount = j * 1000
	}
}

// NoteGroupUses counts the uses of notes of ix (a perfume's each), all
// and those of the "Other notes" group, with the names of the most used
// of these, and names the last group of the notes list.
func NoteGroupUses(ix *index.Index) (uses, other int, others []string, last string) {
	l := makeLists(ix)
	for _, g := range l.noteGroups {
		for _, n := range g.notes {
			uses += n.Count
			if g.ID == otherNotes.ID {
				other += n.Count
				others = append(others, n.Name)
			}
		}
	}
	return uses, other, others, l.noteGroups[len(l.noteGroups)-1].ID
}
