package api

import (
	"context"
	"errors"
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

// changesChunk is about how many bytes of a change feed page are encoded
// before they are written: a page of 1,000 details is some 7 MB, which is
// never held whole.
const changesChunk = 64 << 10

// ChangesPerRequest is how many records of a change feed page count as
// one request against the key's windows.
const ChangesPerRequest = 100

// changesCost is what a change feed page counts as against the key's
// windows: ⌈limit/ChangesPerRequest⌉ for the page size asked (limit,
// clamped as the page is; the default page when absent), which the page
// holds at most. A limit the handler will refuse counts as 1.
func changesCost(r *http.Request) int64 {
	p := newParams(r.URL)
	limit := p.Limit(view.ChangesLimit)
	if p.err() != nil {
		return 1
	}
	return int64((limit + ChangesPerRequest - 1) / ChangesPerRequest)
}

// perfumeChanges is GET /api/perfumes/changes?since=&limit=: the full
// details of the perfumes added or changed after the cursor since, and
// tombstones of the deleted ones, oldest change first. The changes come
// from the store, so every replica pages alike. Each detail is the one the
// detail endpoint gives: from the served index when it holds the record of
// the change (the same change sequence), else made from the stored record
// (a replica whose index has not reloaded since an import; a perfume its
// index does not hold yet has no similar perfumes, and a popularity of its
// own, until it does).
//
// The page is written as it is encoded, a chunk at a time, so a walk of
// the whole catalogue in pages of 1,000 holds one chunk of each answer,
// not the answer.
func (a *API) perfumeChanges(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	cursor, _ := p.Raw("since")
	since, err := catalog.ParseCursor(cursor)
	if err != nil {
		p.Fail("since", err.Error())
	}
	limit := p.Limit(view.ChangesLimit)
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
	cw := a.newChangeWriter(w, r, ix, cs)
	defer cw.release()
	return cw.write(cs, next, hasMore)
}

// changeWriter encodes and writes one change feed page.
type changeWriter struct {
	w    http.ResponseWriter
	r    *http.Request
	ix   *index.Index // the served catalogue (nil: none loaded)
	page *index.Index // the stored records ix does not hold; nil: none
	en   encoder
	b    *[]byte // the chunk being encoded
	out  *[]byte // the chunk filled
}

// newChangeWriter returns the writer of the page cs over the served
// catalogue ix. The encoder keeps no items in ix's item memo: a walk of the
// whole catalogue would fill it in change order, where the memo is meant
// for the perfumes asked for most.
func (a *API) newChangeWriter(w http.ResponseWriter, r *http.Request, ix *index.Index, cs []catalog.Change) *changeWriter {
	cw := &changeWriter{w: w, r: r, ix: ix, en: a.render.encoderFor(nil)}
	cw.en.accordParts = a.render.accordPartsOf(ix)
	var stale []catalog.Perfume
	for _, c := range cs {
		if _, same := cw.live(c); c.Perfume != nil && !same {
			stale = append(stale, *c.Perfume)
		}
	}
	if len(stale) > 0 {
		// Indexed on their own; what depends on the whole catalogue,
		// similar perfumes and popularity, comes from ix.
		cw.page = index.Build(stale, index.Options{AccordColor: a.render.urls.AccordColor})
	}
	cw.b, cw.out = bufPool.Get().(*[]byte), bufPool.Get().(*[]byte)
	return cw
}

// live returns ix's entry of the perfume of change c (nil: none), and
// whether it was built from the same record.
func (cw *changeWriter) live(c catalog.Change) (*index.Entry, bool) {
	if cw.ix == nil {
		return nil, false
	}
	e, ok := cw.ix.ByID(c.ID)
	if !ok {
		return nil, false
	}
	return e, e.Seq == c.Seq
}

// release gives the writer's buffers back.
func (cw *changeWriter) release() {
	cw.en.release()
	putBuf(cw.b)
	putBuf(cw.out)
}

// write writes the page: the changes, then the cursor and hasMore.
func (cw *changeWriter) write(cs []catalog.Change, next int64, hasMore bool) error {
	h := cw.w.Header()
	h["Content-Type"] = contentTypeJSON
	cw.w.WriteHeader(http.StatusOK)
	b := append((*cw.b)[:0], `{"data":[`...)
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = cw.appendChange(b, c)
		if len(b) >= changesChunk {
			if err := cw.flush(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, `],"nextCursor":`...)
	b = jsonenc.AppendString(b, catalog.FormatCursor(next))
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, hasMore)
	b = append(b, "}\n"...)
	return cw.flush(b)
}

// flush fills the holes of the chunk b and writes it.
func (cw *changeWriter) flush(b []byte) error {
	*cw.b = b
	*cw.out, _ = appendFilled((*cw.out)[:0], b, cw.en.holes, cw.en.urls, nil)
	cw.en.holes = cw.en.holes[:0]
	_, err := cw.w.Write(*cw.out)
	if err == nil || errors.Is(err, http.ErrBodyNotAllowed) { // HEAD
		return nil
	}
	return bodyNotWritten{err}
}

// appendChange appends one change: a tombstone, or the perfume's detail,
// with the popularity and similar perfumes of the served catalogue when it
// holds the perfume.
func (cw *changeWriter) appendChange(b []byte, c catalog.Change) []byte {
	if c.Perfume == nil {
		b = append(b, `{"id":`...)
		b = jsonenc.AppendString(b, c.Slug)
		return append(b, `,"deleted":true}`...)
	}
	live, same := cw.live(c)
	e := live
	if !same {
		stored, _ := cw.page.ByID(c.ID)
		cp := *stored
		if live != nil {
			cp.Popularity = live.Popularity
		}
		e = &cp
	}
	var similar []index.Scored
	if live != nil {
		_, similar, _ = cw.ix.Similar(live.Slug(), view.SimilarInDetail)
	}
	return cw.en.appendDetail(b, e, similar)
}
