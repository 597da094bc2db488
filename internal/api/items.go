package api

import (
	"math"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/view"
)

// itemMemo keeps, per perfume of the current catalogue, its list item as
// encoded once: the members every answer that lists the perfume writes the
// same way (a page of a list or a search, a detail's opening members, and
// the identity and accords of a similar, dupe or match result). Profiles of
// answers computed afresh put a third of a list page's CPU and a fifth of
// a search's in encoding those members again, for perfumes that the next
// answer lists again: the popular ones are in most pages and results.
//
// An item is kept the first time it is encoded while the memo has room,
// and then for as long as the catalogue is served: the index is immutable,
// and the members that can change meanwhile (the image URLs and
// imageTransparentAvailable) are kept filled and filled again when the
// image host's stamp moves (encodedItem.current). Kept answers refer to the
// items rather than copy them (see frozen). Real traffic asks for the
// popular perfumes first and most, so they are the ones kept; a perfume
// found after the memo is full is encoded as before.
type itemMemo struct {
	size func(perfumes int) int64 // bytes for a catalogue
	cur  atomic.Pointer[itemGen]
}

// itemGen is the memo of one catalogue.
type itemGen struct {
	ix    *index.Index
	slots []atomic.Pointer[encodedItem] // by index.Pos
	bytes atomic.Int64
	limit int64
}

// encodedItem is a perfume's list item members, without braces, with its
// holes filled (its image URLs and imageTransparentAvailable), filled again
// when the image host's stamp moves, as a kept answer's are. Its first
// identEnd bytes are its id, slug, name and brand (appendIdent) and its
// last accordsLen its accords array: neither holds a hole, so both are the
// same bytes in every filling. Answers kept in the answer cache refer to
// the item (by pos) instead of holding a copy of it (see splice).
type encodedItem struct {
	filled     atomic.Pointer[filledAnswer]
	pos        uint32 // the perfume's index.Pos
	identEnd   int32
	accordsLen int32
}

// current returns the item filled as of stamp (ok: the image host has
// one), filling its holes again when they are older.
func (it *encodedItem) current(urls view.Builder, stamp uint64, ok bool) *filledAnswer {
	f := it.filled.Load()
	if len(f.holes) == 0 || ok && f.stamped && f.stamp == stamp {
		return f
	}
	f = fill(f.body, f.holes, nil, urls, false)
	it.filled.Store(f)
	return f
}

// appendPart appends the part of the item that a splice names.
func (it *encodedItem) appendPart(b []byte, part itemPart, urls view.Builder, stamp uint64, ok bool) []byte {
	switch part {
	case partIdent:
		return append(b, it.filled.Load().body[:it.identEnd]...)
	case partAccords:
		body := it.filled.Load().body
		return append(b, body[len(body)-int(it.accordsLen):]...)
	}
	return append(b, it.current(urls, stamp, ok).body...)
}

// itemOverhead is about what keeping an item costs beside its bytes and
// holes: the item itself and the slices' headers.
const itemOverhead = 144

// The memo's automatic size, per catalogue: a sixteenth of the memory
// limit, but no more than an eighth of what the catalogue leaves of it,
// and at most maxItemMemo; defaultItemMemo without a limit. The answer
// cache's automatic size gives up as much (answerCacheBytes), so that at
// 200,000 perfumes, where the collector's room is small, the two together
// take no more of it than the answer cache alone would (a memo that added
// to it would cost more in collections than it saves in encoding). Kept
// answers refer to the memo's items instead of holding copies (splice), so
// a byte of memo saves many of the cache's.
const (
	maxItemMemo     = 64 << 20
	defaultItemMemo = 16 << 20
)

// itemMemoBytes is the memo's size for a catalogue of perfumes under
// memoryLimit (0 or MaxInt64: none); 0 when the catalogue leaves no room.
func itemMemoBytes(memoryLimit int64, perfumes int) int64 {
	if memoryLimit <= 0 || memoryLimit == math.MaxInt64 {
		return defaultItemMemo
	}
	left := memoryLimit - int64(perfumes)*catalogueBytesPerPerfume
	return max(0, min(maxItemMemo, memoryLimit/16, left/8))
}

// newItemMemo returns a memo of limit bytes per catalogue.
func newItemMemo(limit int64) *itemMemo {
	return &itemMemo{size: func(int) int64 { return limit }}
}

// newAutoItemMemo returns a memo sized for each catalogue by
// itemMemoBytes.
func newAutoItemMemo(memoryLimit int64) *itemMemo {
	return &itemMemo{size: func(perfumes int) int64 { return itemMemoBytes(memoryLimit, perfumes) }}
}

// of returns the memo of ix, starting a new one when ix is a new catalogue;
// nil when the memo is off (m nil or no room) or ix nil.
func (m *itemMemo) of(ix *index.Index) *itemGen {
	if m == nil || ix == nil {
		return nil
	}
	g := m.cur.Load()
	if g != nil && g.ix == ix {
		return g.on()
	}
	ng := &itemGen{ix: ix, limit: m.size(ix.Len())}
	if ng.limit > 0 {
		ng.slots = make([]atomic.Pointer[encodedItem], ix.Len())
	}
	if m.cur.CompareAndSwap(g, ng) {
		return ng.on()
	}
	if g = m.cur.Load(); g != nil && g.ix == ix {
		return g.on()
	}
	return nil // ix was replaced meanwhile: encode without a memo
}

// on is g, or nil when its catalogue leaves the memo no room.
func (g *itemGen) on() *itemGen {
	if g.limit <= 0 {
		return nil
	}
	return g
}

// item returns e's kept item, encoding and keeping it when the memo has
// room; nil when e is not kept and cannot be (the caller encodes it).
func (en *encoder) item(e *index.Entry) *encodedItem {
	g := en.items
	if g == nil {
		return nil
	}
	pos, ok := g.ix.Pos(e)
	if !ok {
		return nil
	}
	if it := g.slots[pos].Load(); it != nil {
		return it
	}
	if g.bytes.Load() >= g.limit {
		return nil
	}
	sub := encoder{render: en.render}
	it := &encodedItem{pos: uint32(pos)}
	b := sub.encodeListFields(make([]byte, 0, 1024), e, it)
	f := fill(b, sub.holes, nil, en.urls, false)
	it.filled.Store(f)
	// The memo had room when it was asked: the item is kept even if it
	// passes the limit (by one item per request at most), so that a full
	// memo is seen as full before anything is encoded for it.
	if g.slots[pos].CompareAndSwap(nil, it) {
		g.bytes.Add(int64(len(f.body) + holeBytes*len(f.holes) + itemOverhead))
		return it
	}
	return g.slots[pos].Load()
}

// itemAt returns the kept item at pos, which a splice names.
func (g *itemGen) itemAt(pos uint32) *encodedItem { return g.slots[pos].Load() }

// appendItem appends a kept item's members, filled as of the encoder's
// stamp, and notes where they are (en.splices).
func (en *encoder) appendItem(b []byte, it *encodedItem) []byte {
	body := it.current(en.urls, en.stamp, en.stamped).body
	en.splices = append(en.splices, splice{at: int32(len(b)), n: int32(len(body)), pos: it.pos, part: partWhole})
	return append(b, body...)
}

// appendIdentOf appends e's id, slug, name and brand members: from it,
// e's kept item (en.item), unless it is nil.
func (en *encoder) appendIdentOf(b []byte, e *index.Entry, it *encodedItem) []byte {
	if it == nil {
		return appendIdent(b, e)
	}
	en.splices = append(en.splices, splice{at: int32(len(b)), n: it.identEnd, pos: it.pos, part: partIdent})
	return append(b, it.filled.Load().body[:it.identEnd]...)
}

// appendAccordsOf appends e's accords array: from it, e's kept item,
// unless it is nil.
func (en *encoder) appendAccordsOf(b []byte, e *index.Entry, it *encodedItem) []byte {
	if it == nil {
		return en.appendAccords(b, e.Accords())
	}
	body := it.filled.Load().body
	en.splices = append(en.splices, splice{at: int32(len(b)), n: it.accordsLen, pos: it.pos, part: partAccords})
	return append(b, body[len(body)-int(it.accordsLen):]...)
}

// appendListFields appends the members of a list item, without braces; a
// detail continues after them.
func (en *encoder) appendListFields(b []byte, e *index.Entry) []byte {
	if it := en.item(e); it != nil {
		return en.appendItem(b, it)
	}
	return en.encodeListFields(b, e, nil)
}

// encodeListFields encodes the members of a list item; when it is set, it
// learns where the identity ends and the accords begin.
func (en *encoder) encodeListFields(b []byte, e *index.Entry, it *encodedItem) []byte {
	start := len(b)
	b, slug := appendIdentSlug(b, e)
	identEnd := len(b)
	b = append(b, `,"year":`...)
	b = jsonenc.AppendOptInt(b, e.Year)
	b = append(b, `,"rating":`...)
	b = jsonenc.AppendOptFloat(b, e.Rating)
	b = append(b, `,"ratingCount":`...)
	b = jsonenc.AppendInt(b, e.RatingCount)
	b = append(b, `,"concentration":`...)
	b = jsonenc.AppendOptString(b, e.Concentration())
	b = append(b, `,"gender":`...)
	b = jsonenc.AppendString(b, string(e.Gender()))
	b = append(b, `,"priceTier":`...)
	b = jsonenc.AppendOptString(b, string(e.PriceTier()))
	b = en.appendImages(b, e.ID, true)
	b = append(b, `,"buyUrl":`...)
	b = en.appendBuy(b, slug)
	b = append(b, `,"accords":`...)
	accords := len(b)
	b = en.appendAccords(b, e.Accords())
	if it != nil {
		it.identEnd, it.accordsLen = int32(identEnd-start), int32(len(b)-accords)
	}
	return b
}
