package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/view"
)

// ChangeFeed is what the change feed needs of the store: the changes after
// a sequence, oldest first (catalog.Store meets it).
type ChangeFeed interface {
	Changes(ctx context.Context, since int64, limit int) ([]catalog.Change, error)
}

// perfumeChanges is GET /api/perfumes/changes?since=&limit=: the full
// details of the perfumes added or changed after the cursor since, and
// tombstones of the deleted ones, oldest change first. The changes come
// from the store, so every replica pages alike; each detail is the one the
// detail endpoint gives, made from the stored record: a replica whose index
// has not reloaded since an import still serves the new records (a perfume
// its index does not hold yet has no similar perfumes, and a popularity of
// its own, until it does).
func (a *API) perfumeChanges(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	cursor, _ := p.raw("since")
	since, err := catalog.ParseCursor(cursor)
	if err != nil {
		p.fail("since", err.Error())
	}
	limit := p.limit(view.ChangesLimit)
	if err := p.err(); err != nil {
		return err
	}
	cs, err := a.cfg.Changes.Changes(r.Context(), since, limit+1)
	if err != nil {
		return err
	}
	hasMore := len(cs) > limit
	if hasMore {
		cs = cs[:limit]
	}
	next := since
	if len(cs) > 0 {
		next = cs[len(cs)-1].Seq
	}
	ix := a.cfg.Catalogue.Load()
	// The details are the stored records' (this replica's index may not
	// have reloaded since the import), indexed on their own; what depends
	// on the whole catalogue, similar perfumes and popularity, comes from
	// the index.
	var ps []catalog.Perfume
	for _, c := range cs {
		if c.Perfume != nil {
			ps = append(ps, *c.Perfume)
		}
	}
	page := index.Build(ps, index.Options{AccordColor: a.render.urls.AccordColor})
	// No item memo: page is a throwaway index, not the catalogue served.
	return a.answerUncached(w, r, nil, func(en *encoder, b []byte) ([]byte, error) {
		b = append(b, `{"data":[`...)
		for i, c := range cs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendChange(en, b, ix, page, c)
		}
		b = append(b, `],"nextCursor":`...)
		b = jsonenc.AppendString(b, catalog.FormatCursor(next))
		b = append(b, `,"hasMore":`...)
		b = strconv.AppendBool(b, hasMore)
		return append(b, '}'), nil
	})
}

// appendChange appends one change: a tombstone, or the perfume's detail
// from page, with the popularity and similar perfumes of ix when ix holds
// the perfume.
func appendChange(en *encoder, b []byte, ix, page *index.Index, c catalog.Change) []byte {
	if c.Perfume == nil {
		b = append(b, `{"id":`...)
		b = jsonenc.AppendString(b, c.Slug)
		return append(b, `,"deleted":true}`...)
	}
	e, _ := page.ByID(c.ID)
	var similar []index.Scored
	if live, ok := ix.ByID(c.ID); ok {
		e.Popularity = live.Popularity
		_, similar, _ = ix.Similar(live.Slug(), view.SimilarInDetail)
	}
	return en.appendDetail(b, e, similar)
}
