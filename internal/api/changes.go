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
// detail endpoint gives from this replica's index, or, for a perfume the
// index has not loaded yet, the stored record's without similar perfumes.
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
	return a.answerUncached(w, func(en *encoder, b []byte) ([]byte, error) {
		b = append(b, `{"data":[`...)
		for i, c := range cs {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.appendChange(en, b, ix, c)
		}
		b = append(b, `],"nextCursor":`...)
		b = jsonenc.AppendString(b, catalog.FormatCursor(next))
		b = append(b, `,"hasMore":`...)
		b = strconv.AppendBool(b, hasMore)
		return append(b, '}'), nil
	})
}

// appendChange appends one change: a tombstone, or the perfume's detail.
func (a *API) appendChange(en *encoder, b []byte, ix *index.Index, c catalog.Change) []byte {
	if c.Perfume == nil {
		b = append(b, `{"id":`...)
		b = jsonenc.AppendString(b, c.Slug)
		return append(b, `,"deleted":true}`...)
	}
	if e, ok := ix.ByID(c.ID); ok {
		if _, similar, err := ix.Similar(e.Slug(), view.SimilarInDetail); err == nil {
			return en.appendDetail(b, e, similar)
		}
	}
	one := index.Build([]catalog.Perfume{*c.Perfume}, index.Options{AccordColor: a.render.urls.AccordColor})
	e, _ := one.ByID(c.ID)
	return en.appendDetail(b, e, nil)
}
