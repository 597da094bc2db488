package api

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
)

// browsePerfumes is GET /api/perfumes with any of the browse parameters
// (view.BrowseParams): filters, a sort, facets, or an ids lookup.
func (a *API) browsePerfumes(w http.ResponseWriter, r *http.Request, q index.BrowseQuery) error {
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("browse", q), func(en *encoder, b []byte) ([]byte, error) {
		res, err := ix.Browse(q)
		if err != nil {
			return nil, err
		}
		return en.appendBrowse(b, res), nil
	})
}

// appendBrowse appends a page as appendPage does, then "facets" when
// counted and "missing" for a lookup.
func (en *encoder) appendBrowse(b []byte, res index.BrowseResult) []byte {
	b = en.appendPage(b, res.Page)
	b = b[:len(b)-1] // reopen the object appendPage closed
	if f := res.Facets; f != nil {
		b = append(b, `,"facets":{`...)
		first := true
		for _, facet := range []struct {
			name   string
			counts []index.FacetCount
		}{
			{index.FacetGender, f.Gender}, {index.FacetSeason, f.Season}, {index.FacetTime, f.Time},
			{index.FacetAccords, f.Accords}, {index.FacetNotes, f.Notes}, {index.FacetYear, f.Year},
		} {
			if facet.counts == nil {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsonenc.AppendString(b, facet.name)
			b = append(b, ':')
			b = appendFacetCounts(b, facet.counts)
		}
		b = append(b, '}')
	}
	if res.Missing != nil {
		b = append(b, `,"missing":[`...)
		for i, s := range res.Missing {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendFacetCounts appends [{"value","count"},...].
func appendFacetCounts(b []byte, counts []index.FacetCount) []byte {
	b = append(b, '[')
	for i, c := range counts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		b = jsonenc.AppendString(b, c.Value)
		b = append(b, `,"count":`...)
		b = jsonenc.AppendInt(b, c.Count)
		b = append(b, '}')
	}
	return append(b, ']')
}
