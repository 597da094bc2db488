package api

import (
	"errors"
	"net/http"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
)

// listPerfumes is GET /api/perfumes?q=&brand=&page=&limit=, and with any
// browse parameter (view.BrowseParams) browsePerfumes.
func (a *API) listPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	bq, err := view.ParseBrowse(p.Values())
	var perrs catalog.ParamErrors
	if errors.As(err, &perrs) {
		p.Add(perrs...)
	}
	if p.err() != nil {
		// The values the catalogue does not know are reported with the
		// rest, so that one answer lists every problem.
		if ix := a.cfg.Catalogue.Load(); ix != nil && errors.As(ix.CheckBrowse(bq), &perrs) {
			p.Add(perrs...)
		}
		return p.err()
	}
	if !view.IsPlainList(bq) {
		return a.browsePerfumes(w, r, bq)
	}
	q := index.ListQuery{Q: bq.Q, Brand: bq.Brand, Page: bq.Page, Limit: bq.Limit}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("perfumes", q), func(en *encoder, b []byte) ([]byte, error) {
		pg := ix.Perfumes(q)
		if pg.Total == 0 && q.Q != "" {
			en.counts.emptySearch = search.Fold(q.Q)
		}
		return en.appendPage(b, pg), nil
	})
}

// slugQuery is the parsed request of a perfume's own endpoints.
type slugQuery struct {
	Slug  string
	Limit int
}

// getPerfume is GET /api/perfumes/{slug}.
func (a *API) getPerfume(w http.ResponseWriter, r *http.Request) error {
	ix := a.cfg.Catalogue.Load()
	q := slugQuery{Slug: r.PathValue("slug"), Limit: view.SimilarInDetail}
	return a.answer(w, r, ix, cacheKey("detail", q), func(en *encoder, b []byte) ([]byte, error) {
		e, err := ix.Perfume(q.Slug)
		if err != nil {
			return nil, err
		}
		_, similar, err := ix.Similar(e.Slug(), q.Limit)
		if err != nil {
			return nil, err
		}
		en.view(e.ID, usage.ViewDetail)
		return en.appendDetail(b, e, similar), nil
	})
}

// similarPerfumes is GET /api/perfumes/{slug}/similar?limit=.
func (a *API) similarPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := slugQuery{Slug: r.PathValue("slug"), Limit: p.Limit(view.SimilarLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("similar", q), func(en *encoder, b []byte) ([]byte, error) {
		e, items, err := ix.Similar(q.Slug, q.Limit)
		if err != nil {
			return nil, err
		}
		en.view(e.ID, usage.ViewSimilar)
		return en.appendSimilarAnswer(b, e, items, q.Limit), nil
	})
}

// dupePerfumes is GET /api/perfumes/{slug}/dupes?limit=.
func (a *API) dupePerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := slugQuery{Slug: r.PathValue("slug"), Limit: p.Limit(view.DupesLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("dupes", q), func(en *encoder, b []byte) ([]byte, error) {
		e, items, err := ix.Dupes(q.Slug, q.Limit)
		if err != nil {
			return nil, err
		}
		en.view(e.ID, usage.ViewDupes)
		return en.appendDupesAnswer(b, e, items, q.Limit), nil
	})
}

// matchPerfumes is GET /api/perfumes/match: at least one of q, accords,
// notes, gender, season and time is required. q is a description read by
// package describe and combined with the other parameters (AND; a
// parameter given wins over what q says of the same thing); a leading "-"
// in accords or notes excludes.
func (a *API) matchPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	accords, exAccords := p.accordWants("accords")
	notes, exNotes := p.excluding("notes", p.list("notes"))
	key := matchKey{Text: p.Text("q"), Q: index.MatchQuery{
		Accords: accords,
		Notes:   notes,
		Gender:  catalog.Gender(p.oneOf("gender", view.Genders)),
		Season:  p.oneOf("season", view.Seasons),
		Time:    p.oneOf("time", view.Times),
		Sort:    p.oneOf("sort", view.MatchSorts),
		Exclude: index.Want{Accords: exAccords, Notes: exNotes},
		Page:    p.Page(),
		Limit:   p.Limit(view.MatchLimit),
	}}
	if err := p.err(); err != nil {
		return err
	}
	q := key.Q
	if key.Text == "" && len(q.Accords) == 0 && len(q.Notes) == 0 && q.Gender == "" && q.Season == "" && q.Time == "" {
		// Nothing to match: every perfume would score alike.
		p.Fail("query", "match needs at least one of q, accords, notes, gender, season or time (page, limit, sort and exclusions only order or narrow the answer)")
	}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("match", key), func(en *encoder, b []byte) ([]byte, error) {
		res, echo, err := view.DescribedMatch(ix, key.Text, q)
		if err != nil {
			return nil, err
		}
		if res.Total == 0 && key.Text != "" {
			en.counts.emptySearch = search.Fold(key.Text)
		}
		return en.appendMatchAnswer(b, echo, res), nil
	})
}

// matchKey is a match request as the answer cache keys it: the
// description as sent and the structured query.
type matchKey struct {
	Text string
	Q    index.MatchQuery
}
