package api

import (
	"net/http"
)

const (
	accordsDefaultLimit  = 50
	accordsMaxLimit      = 100
	perfumerDefaultLimit = 20
	perfumerMaxLimit     = 100
	notesMaxLimit        = 100000
)

type countsJSON struct {
	Data  []countJSON `json:"data"`
	Total int         `json:"total"`
}

type limitedCountsJSON struct {
	Data  []countJSON `json:"data"`
	Total int         `json:"total"`
	Limit *int        `json:"limit,omitempty"`
}

// listBrands is GET /api/brands?q=.
func (s *Server) listBrands(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := p.text("q")
	if err := p.err(); err != nil {
		return err
	}
	bs := s.cfg.Catalogue.Load().Brands(q)
	return writeJSON(w, countsJSON{Data: counts(bs), Total: len(bs)})
}

// listNotes is GET /api/notes?limit= (all notes by default).
func (s *Server) listNotes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", 0, notesMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	items, total := s.cfg.Catalogue.Load().Notes(limit)
	out := limitedCountsJSON{Data: counts(items), Total: total}
	if limit > 0 {
		out.Limit = &limit
	}
	return writeJSON(w, out)
}

// listPerfumers is GET /api/perfumers.
func (s *Server) listPerfumers(w http.ResponseWriter, r *http.Request) error {
	if err := newParams(r.URL).err(); err != nil {
		return err
	}
	ps := s.cfg.Catalogue.Load().Perfumers()
	return writeJSON(w, countsJSON{Data: counts(ps), Total: len(ps)})
}

type perfumerJSON struct {
	Name     string   `json:"name"`
	Slug     string   `json:"slug"`
	Count    int      `json:"count"`
	Perfumes pageJSON `json:"perfumes"`
}

// getPerfumer is GET /api/perfumers/{slug}?page=&limit=.
func (s *Server) getPerfumer(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	page := p.page()
	limit := p.positive("limit", perfumerDefaultLimit, perfumerMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	c, pg, err := s.cfg.Catalogue.Load().Perfumer(r.PathValue("slug"), page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, perfumerJSON{Name: c.Name, Slug: c.Slug, Count: c.Count, Perfumes: s.page(pg)})
}

// listAccords is GET /api/accords?search=&limit=.
func (s *Server) listAccords(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	search := p.text("search")
	limit := p.positive("limit", accordsDefaultLimit, accordsMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	items, total := s.cfg.Catalogue.Load().Accords(search, limit)
	return writeJSON(w, limitedCountsJSON{Data: counts(items), Total: total, Limit: &limit})
}
