package api

import (
	"math"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
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
// imageTransparentAvailable) are holes, filled when an answer is written
// (see frozen). Real traffic asks for the popular perfumes first and most,
// so they are the ones kept; a perfume found after the memo is full is
// encoded as before.
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

// encodedItem is a perfume's list item members, without braces:
// b[:identEnd] are its id, slug, name and brand (appendIdent), and
// b[accords:] its accords array; holes are relative to b.
type encodedItem struct {
	b        []byte
	identEnd int
	accords  int
	holes    []hole
}

func (it *encodedItem) ident() []byte     { return it.b[:it.identEnd] }
func (it *encodedItem) accordsOf() []byte { return it.b[it.accords:] }

// itemOverhead is about what keeping an item costs beside its bytes and
// holes: the item itself and the slices' headers.
const itemOverhead = 80

// The memo's automatic size, per catalogue: a thirty-second of the memory
// limit, but no more than a sixteenth of what the catalogue leaves of it,
// and at most maxItemMemo; defaultItemMemo without a limit. The answer
// cache's automatic size gives up as much (answerCacheBytes), so the two
// together take no more of the collector's room than the answer cache
// alone did: at 200,000 perfumes, where that room is small, a memo that
// added to it cost more in collections than it saved in encoding. Under
// the default 350 MiB limit: 11 MB on the bundled catalogue (the items of
// about 12,000 perfumes, 920 bytes each), 8 MB at 200,000 perfumes.
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
	return max(0, min(maxItemMemo, memoryLimit/32, left/16))
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
	it := &encodedItem{}
	it.b = sub.encodeListFields(make([]byte, 0, 1024), e, it)
	it.b = append([]byte(nil), it.b...) // no spare capacity kept
	it.holes = sub.holes
	// The memo had room when it was asked: the item is kept even if it
	// passes the limit (by one item per request at most), so that a full
	// memo is seen as full before anything is encoded for it.
	if g.slots[pos].CompareAndSwap(nil, it) {
		g.bytes.Add(int64(len(it.b) + holeBytes*len(it.holes) + itemOverhead))
	}
	return it
}

// appendItem appends a kept item's members, its holes moved to where they
// land in b.
func (en *encoder) appendItem(b []byte, it *encodedItem) []byte {
	base := len(b)
	for _, h := range it.holes {
		h.pos += base
		en.holes = append(en.holes, h)
	}
	return append(b, it.b...)
}

// appendIdentOf appends e's id, slug, name and brand members: from it,
// e's kept item (en.item), unless it is nil.
func appendIdentOf(b []byte, e *index.Entry, it *encodedItem) []byte {
	if it != nil {
		return append(b, it.ident()...)
	}
	return appendIdent(b, e)
}

// appendAccordsOf appends e's accords array: from it, e's kept item,
// unless it is nil.
func (en *encoder) appendAccordsOf(b []byte, e *index.Entry, it *encodedItem) []byte {
	if it != nil {
		return append(b, it.accordsOf()...)
	}
	return appendAccords(en, b, e.Accords())
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
	b = appendIdent(b, e)
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
	b = appendBuy(b, en.urls, e.Slug())
	b = append(b, `,"accords":`...)
	if it != nil {
		it.identEnd, it.accords = identEnd-start, len(b)-start
	}
	return appendAccords(en, b, e.Accords())
}
