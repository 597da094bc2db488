package api

import (
	"net/http"
	"strconv"

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
	ix := s.cfg.Catalogue.Load()
	key := answerKey("perfumes", q.Q, q.Brand, strconv.Itoa(q.Page), strconv.Itoa(q.Limit))
	return s.answer(w, r, ix, key, func(en *encoder, b []byte) ([]byte, error) {
		return en.appendPage(b, ix.Perfumes(q)), nil
	})
}

// answerKey names an answer in the answer cache: the route and its
// parameters, separated by a byte no parameter holds once parsed.
func answerKey(route string, params ...string) string {
	n := len(route)
	for _, p := range params {
		n += 1 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, route...)
	for _, p := range params {
		b = append(append(b, 0), p...)
	}
	return string(b)
}

// getPerfume is GET /api/perfumes/{slug}.
func (s *Server) getPerfume(w http.ResponseWriter, r *http.Request) error {
	ix := s.cfg.Catalogue.Load()
	slug := r.PathValue("slug")
	return s.answer(w, r, ix, answerKey("detail", slug), func(en *encoder, b []byte) ([]byte, error) {
		e, err := ix.Perfume(slug)
		if err != nil {
			return nil, err
		}
		_, similar, err := ix.Similar(e.Slug(), similarInDetail)
		if err != nil {
			return nil, err
		}
		return en.appendDetail(b, e, similar), nil
	})
}

// similarPerfumes is GET /api/perfumes/{slug}/similar?limit=.
func (s *Server) similarPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", similarDefaultLimit, similarMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	slug := r.PathValue("slug")
	return s.answer(w, r, ix, answerKey("similar", slug, strconv.Itoa(limit)), func(en *encoder, b []byte) ([]byte, error) {
		e, items, err := ix.Similar(slug, limit)
		if err != nil {
			return nil, err
		}
		return en.appendSimilarAnswer(b, e, items, limit), nil
	})
}

// dupePerfumes is GET /api/perfumes/{slug}/dupes?limit=.
func (s *Server) dupePerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	limit := p.positive("limit", dupesDefaultLimit, dupesMaxLimit)
	if err := p.err(); err != nil {
		return err
	}
	ix := s.cfg.Catalogue.Load()
	slug := r.PathValue("slug")
	return s.answer(w, r, ix, answerKey("dupes", slug, strconv.Itoa(limit)), func(en *encoder, b []byte) ([]byte, error) {
		e, items, err := ix.Dupes(slug, limit)
		if err != nil {
			return nil, err
		}
		return en.appendDupesAnswer(b, e, items, limit), nil
	})
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
	ix := s.cfg.Catalogue.Load()
	return s.answer(w, r, ix, matchKey(q), func(en *encoder, b []byte) ([]byte, error) {
		res, err := ix.Match(q)
		if err != nil {
			return nil, err
		}
		return en.appendMatchAnswer(b, q, res), nil
	})
}

// matchKey is the answer cache key of a match query: every field, in order.
func matchKey(q index.MatchQuery) string {
	b := make([]byte, 0, 128)
	b = append(b, "match"...)
	b = append(b, 0)
	for _, a := range q.Accords {
		b = append(append(b, a.Name...), ':')
		b = strconv.AppendFloat(b, a.Strength, 'g', -1, 64)
		b = append(b, 0)
	}
	b = append(b, '|')
	for _, n := range q.Notes {
		b = append(append(b, n...), 0)
	}
	b = append(b, '|')
	b = append(append(b, q.Gender...), 0)
	b = append(append(b, q.Season...), 0)
	b = append(append(b, q.Time...), 0)
	b = strconv.AppendInt(b, int64(q.Page), 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(q.Limit), 10)
	return string(b)
}
