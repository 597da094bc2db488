package api

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// Limits of the seed and the contract.
const (
	perfumesDefaultLimit = 20
	perfumesMaxLimit     = 100
	similarDefaultLimit  = 10
	similarMaxLimit      = 20
	dupesDefaultLimit    = 20
	dupesMaxLimit        = 50
	matchDefaultLimit    = 20
	matchMaxLimit        = 50
	// similarInDetail is how many similar perfumes a detail carries.
	similarInDetail = 5
)

type pageJSON struct {
	Data  []listItem `json:"data"`
	Total int        `json:"total"`
	Page  int        `json:"page"`
	Pages int        `json:"pages"`
	Limit int        `json:"limit"`
}

func (s *Server) page(pg index.Page) pageJSON {
	return pageJSON{Data: s.render.list(pg.Entries), Total: pg.Total, Page: pg.Page, Pages: pg.Pages, Limit: pg.Limit}
}

// listPerfumes is GET /api/perfumes?q=&brand=&page=&limit=.
func (s *Server) listPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := index.ListQuery{
		Q:     p.text("q"),
		Brand: p.text("brand"),
		Page:  p.page(),
		Limit: p.positive("limit", perfumesDefaultLimit, perfumesMaxLimit),
	}
	if err := p.err(); err != nil {
		return err
	}
	return writeJSON(w, s.page(s.cfg.Catalogue.Load().Perfumes(q)))
}

// getPerfume is GET /api/perfumes/{slug}.
func (s *Server) getPerfume(w http.ResponseWriter, r *http.Request) error {
	ix := s.cfg.Catalogue.Load()
	e, err := ix.Perfume(r.PathValue("slug"))
	if err != nil {
		return err
	}
	_, similar, err := ix.Similar(e.Slug, similarInDetail)
	if err != nil {
		return err
	}
	return writeJSON(w, s.render.detail(e, similar))
}

type similarJSON struct {
	Source sourceRef     `json:"source"`
	Data   []similarItem `json:"data"`
	Total  int           `json:"total"`
	Limit  int           `json:"limit"`
}

// similarPerfumes is GET /api/perfumes/{slug}/similar?limit=.
func (s *Server) similarPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", similarDefaultLimit, similarMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	e, items, err := s.cfg.Catalogue.Load().Similar(r.PathValue("slug"), limit)
	if err != nil {
		return err
	}
	return writeJSON(w, similarJSON{Source: ref(e), Data: s.render.similar(items), Total: len(items), Limit: limit})
}

type dupesJSON struct {
	Source dupeSource `json:"source"`
	Data   []dupeItem `json:"data"`
	Total  int        `json:"total"`
	Limit  int        `json:"limit"`
}

// dupePerfumes is GET /api/perfumes/{slug}/dupes?limit=.
func (s *Server) dupePerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", dupesDefaultLimit, dupesMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	e, items, err := s.cfg.Catalogue.Load().Dupes(r.PathValue("slug"), limit)
	if err != nil {
		return err
	}
	src := dupeSource{
		sourceRef:        ref(e),
		Image:            s.render.urls.Image(e.ID),
		ImageTransparent: s.render.urls.Transparent(e.ID),
		Rating:           optFloat(e.Rating),
		PriceTier:        optString(string(e.PriceTier)),
	}
	return writeJSON(w, dupesJSON{Source: src, Data: s.render.dupes(items), Total: len(items), Limit: limit})
}

type matchFilters struct {
	Accords         []string           `json:"accords"`
	AccordStrengths map[string]float64 `json:"accordStrengths"`
	Notes           []string           `json:"notes"`
	Gender          *string            `json:"gender"`
	Season          *string            `json:"season"`
	Time            *string            `json:"time"`
}

type matchJSON struct {
	Data    []matchItem  `json:"data"`
	Filters matchFilters `json:"filters"`
	Total   int          `json:"total"`
	Page    int          `json:"page"`
	Pages   int          `json:"pages"`
	Limit   int          `json:"limit"`
}

// matchPerfumes is GET /api/perfumes/match.
func (s *Server) matchPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	wants := parseAccordWants(p, p.list("accords", 20))
	q := index.MatchQuery{
		Notes:  p.list("notes", 20),
		Gender: catalog.Gender(p.oneOf("gender", "masculine", "feminine", "unisex")),
		Season: p.oneOf("season", "winter", "spring", "summer", "fall"),
		Time:   p.oneOf("time", "day", "night"),
		Page:   p.page(),
		Limit:  p.positive("limit", matchDefaultLimit, matchMaxLimit),
	}
	for _, a := range wants {
		q.Accords = append(q.Accords, index.AccordWant{Name: a.name, Strength: a.strength})
	}
	if err := p.err(); err != nil {
		return err
	}
	res, err := s.cfg.Catalogue.Load().Match(q)
	if err != nil {
		return err
	}
	f := matchFilters{
		Accords:         make([]string, len(res.Accords)),
		AccordStrengths: make(map[string]float64, len(res.Accords)),
		Notes:           res.Notes,
		Gender:          optString(string(q.Gender)),
		Season:          optString(q.Season),
		Time:            optString(q.Time),
	}
	if f.Notes == nil {
		f.Notes = []string{}
	}
	for i, a := range res.Accords {
		f.Accords[i] = a.Name
		f.AccordStrengths[a.Name] = a.Strength
	}
	return writeJSON(w, matchJSON{Data: s.render.matches(res.Items), Filters: f,
		Total: res.Total, Page: res.Page, Pages: res.Pages, Limit: res.Limit})
}
