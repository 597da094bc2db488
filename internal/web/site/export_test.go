package site

import (
	"io/fs"
	"os"
	"sync"
	"testing/fstest"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// PerfumeContents renders the content of the perfume page of slug as the
// page does (got) and with the template it replaced, testdata/
// perfume_ref.html over the area's partials (want). With hostile set, the
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
	tpl, err := s.refTemplates()
	if err != nil {
		return "", "", err
	}
	content, err := tpl.Content("perfume_ref", web.Page{Data: p})
	if err != nil {
		return "", "", err
	}
	return string(perfumeHTML(p)), string(content), nil
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

var (
	refMu   sync.Mutex
	refTpls = map[*Site]*web.Templates{}
)

// refTemplates parses the reference template once per site.
func (s *Site) refTemplates() (*web.Templates, error) {
	refMu.Lock()
	defer refMu.Unlock()
	if t, ok := refTpls[s]; ok {
		return t, nil
	}
	ref, err := os.ReadFile("testdata/perfume_ref.html")
	if err != nil {
		return nil, err
	}
	cards, err := fs.ReadFile(templateFS, "templates/_cards.html")
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{
		"templates/perfume_ref.html": {Data: ref},
		"templates/_cards.html":      {Data: cards},
	}
	tpl, err := s.web.Templates(fsys, funcs(), "perfume_ref")
	if err != nil {
		return nil, err
	}
	refTpls[s] = tpl
	return tpl, nil
}

// spoil replaces every text of p by the hostile strings, taken in turn.
func spoil(p *perfumePage, hostile []string) {
	i := 0
	next := func() string { i++; return hostile[i%len(hostile)] }
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
	awkward := []float64{1e21, 0.1 + 0.2, 0, 100, 1.0 / 3, 1e-7}
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
}
