package api

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/view"
)

// siteSearch is GET /api/search?q=&limit=, without a key (limited per
// client IP by cfg.SiteSearch): the website's search box and public
// clients. It ranks as /api/perfumes?q= does (the same index and
// ranking) and answers {"perfumes":[{"name","brand","slug","image",
// "imageTransparent"}]}; no q answers an empty list.
func (a *API) siteSearch(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := index.ListQuery{Q: p.Text("q"), Page: 1, Limit: p.Limit(view.SiteSearchLimit)}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("sitesearch", q), func(en *encoder, b []byte) ([]byte, error) {
		// Searches typed letter by letter are not counted as empty
		// searches: half-typed words would drown the real ones.
		var es []*index.Entry
		if q.Q != "" {
			es = ix.Perfumes(q).Entries
		}
		return en.appendSiteSearch(b, es), nil
	})
}

// appendSiteSearch encodes the answer of /api/search.
func (en *encoder) appendSiteSearch(b []byte, es []*index.Entry) []byte {
	b = append(b, `{"perfumes":[`...)
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonenc.AppendString(b, e.Name())
		b = append(b, `,"brand":`...)
		b = jsonenc.AppendString(b, e.Brand())
		b = append(b, `,"slug":`...)
		b = jsonenc.AppendString(b, e.Slug())
		b = append(b, `,"image":`...)
		b = en.appendImage(b, e.ID)
		b = append(b, `,"imageTransparent":`...)
		b = en.appendTransparent(b, e.ID)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
