package api

import (
	"net/http"
	"strconv"
)

const (
	accordsDefaultLimit  = 50
	accordsMaxLimit      = 100
	perfumerDefaultLimit = 20
	perfumerMaxLimit     = 100
	notesMaxLimit        = 100000
)

// listBrands is GET /api/brands?q=.
func (s *Server) listBrands(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := p.text("q")
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	return s.answer(w, r, ix, answerKey("brands", q), func(_ *encoder, b []byte) ([]byte, error) {
		bs := ix.Brands(q)
		return appendCountsAnswer(b, bs, len(bs), 0), nil
	})
}

// listNotes is GET /api/notes?limit= (all notes by default).
func (s *Server) listNotes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", 0, notesMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	return s.answer(w, r, ix, answerKey("notes", strconv.Itoa(limit)), func(_ *encoder, b []byte) ([]byte, error) {
		items, total := ix.Notes(limit)
		return appendCountsAnswer(b, items, total, limit), nil
	})
}

// listPerfumers is GET /api/perfumers.
func (s *Server) listPerfumers(w http.ResponseWriter, r *http.Request) error {
	if err := newParams(r.URL).err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	return s.answer(w, r, ix, answerKey("perfumers"), func(_ *encoder, b []byte) ([]byte, error) {
		ps := ix.Perfumers()
		return appendCountsAnswer(b, ps, len(ps), 0), nil
	})
}

// getPerfumer is GET /api/perfumers/{slug}?page=&limit=.
func (s *Server) getPerfumer(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	page := p.page()
	limit := p.positive("limit", perfumerDefaultLimit, perfumerMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	slug := r.PathValue("slug")
	key := answerKey("perfumer", slug, strconv.Itoa(page), strconv.Itoa(limit))
	return s.answer(w, r, ix, key, func(en *encoder, b []byte) ([]byte, error) {
		c, pg, err := ix.Perfumer(slug, page, limit)
		if err != nil {
			return nil, err
		}
		return en.appendPerfumer(b, c, pg), nil
	})
}

// listAccords is GET /api/accords?search=&limit=.
func (s *Server) listAccords(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	search := p.text("search")
	limit := p.positive("limit", accordsDefaultLimit, accordsMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	return s.answer(w, r, ix, answerKey("accords", search, strconv.Itoa(limit)), func(_ *encoder, b []byte) ([]byte, error) {
		items, total := ix.Accords(search, limit)
		return appendCountsAnswer(b, items, total, limit), nil
	})
}
