package api

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/view"
)

// listBrands is GET /api/brands?q=.
func (a *API) listBrands(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := struct{ Q string }{p.Text("q")}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("brands", q), func(_ *encoder, b []byte) ([]byte, error) {
		bs := ix.Brands(q.Q)
		return appendCountsAnswer(b, bs, len(bs), 0), nil
	})
}

// listNotes is GET /api/notes?limit= (all notes by default).
func (a *API) listNotes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := struct{ Limit int }{p.Limit(view.NotesLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("notes", q), func(_ *encoder, b []byte) ([]byte, error) {
		items, total := ix.Notes(q.Limit)
		return appendCountsAnswer(b, items, total, q.Limit), nil
	})
}

// listPerfumers is GET /api/perfumers.
func (a *API) listPerfumers(w http.ResponseWriter, r *http.Request) error {
	if err := newParams(r.URL).err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("perfumers", struct{}{}), func(_ *encoder, b []byte) ([]byte, error) {
		ps := ix.Perfumers()
		return appendCountsAnswer(b, ps, len(ps), 0), nil
	})
}

// getPerfumer is GET /api/perfumers/{slug}?page=&limit=.
func (a *API) getPerfumer(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := struct {
		Slug        string
		Page, Limit int
	}{r.PathValue("slug"), p.Page(), p.Limit(view.PerfumerLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("perfumer", q), func(en *encoder, b []byte) ([]byte, error) {
		c, pg, err := ix.Perfumer(q.Slug, q.Page, q.Limit)
		if err != nil {
			return nil, err
		}
		return en.appendPerfumer(b, c, pg), nil
	})
}

// listAccords is GET /api/accords?search=&limit=.
func (a *API) listAccords(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := struct {
		Search string
		Limit  int
	}{p.Text("search"), p.Limit(view.AccordsLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("accords", q), func(_ *encoder, b []byte) ([]byte, error) {
		items, total := ix.Accords(q.Search, q.Limit)
		return appendCountsAnswer(b, items, total, q.Limit), nil
	})
}
