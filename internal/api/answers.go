package api

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
)

// cacheKey names an answer in the answer cache: the route and every field
// of its parsed, validated query q, in order. It is the one place keys are
// made: a field added to a query is part of its key without anyone having
// to remember it (answers_test.go holds every route to that). q is a
// struct of strings, numbers and slices of them; it is read by reflection,
// which costs little beside the answer.
func cacheKey(route string, q any) string {
	var buf [256]byte
	b := append(buf[:0], route...)
	b = append(b, 0)
	return string(appendKeyOf(b, reflect.ValueOf(q)))
}

// appendKeyOf appends v to a cache key, each value ended by a zero byte
// (which no parsed parameter holds) and each slice preceded by its length,
// so that no two queries spell the same key.
func appendKeyOf(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return append(append(b, v.String()...), 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(b, v.Int(), 10), 0)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return append(strconv.AppendUint(b, v.Uint(), 10), 0)
	case reflect.Float32, reflect.Float64:
		return append(strconv.AppendUint(b, math.Float64bits(v.Float()), 16), 0)
	case reflect.Bool:
		return append(strconv.AppendBool(b, v.Bool()), 0)
	case reflect.Slice, reflect.Array:
		b = append(strconv.AppendInt(b, int64(v.Len()), 10), '[')
		for i := range v.Len() {
			b = appendKeyOf(b, v.Index(i))
		}
		return append(b, ']')
	case reflect.Struct:
		for i := range v.NumField() {
			b = appendKeyOf(b, v.Field(i))
		}
		return b
	}
	// A pointer, map or interface has no stable spelling: a query type
	// holding one is a programming error the route tests catch.
	panic("api: cache key of a query holding a " + v.Kind().String())
}

// frozen is an encoded answer, final newline included, as last written:
// the live imageTransparentAvailable flags and image URLs filled in, where
// each is noted, and what serving it counts.
//
// The perfumes an answer lists are kept items of the item memo (encoder.item)
// when it had room for them: a kept answer then holds the bytes between
// them and refers to each item's part (its members, or only its identity
// or accords) by a splice, and writing the answer splices them in. A page
// of fifty perfumes is then about 1.4 KB in the cache instead of 45 KB.
type frozen struct {
	counts answerCounts
	// filled is the answer with its holes filled, and the image host's
	// stamp when they were: requests write it as it is until the stamp
	// moves (a transparent image made, a photo imported), and the first
	// request after that fills the holes again. A kept answer holds one
	// body, not a template beside its filled copy.
	filled     atomic.Pointer[filledAnswer]
	items      *itemGen // the memo its splices name; nil: it has none
	answerSlot          // its place in the cache, once kept
}

// filledAnswer is an answer, or a kept item, with its holes filled.
type filledAnswer struct {
	body   []byte
	length []string // Content-Length of an answer without splices
	holes  []hole   // where each filled value is in body, and its length
	// splices are where kept items' parts go in body, in order; nil: body
	// is the whole answer.
	splices []splice
	stamp   uint64 // the image host's stamp (view.Builder.Stamp) when filled
	// stamped is whether the stamp tells when to fill again; false: an
	// image host that cannot tell, and the holes are filled every time.
	stamped bool
}

// hole is where a live member of perfume id goes in an answer: in an
// encoded one, at pos, with n zero; in a filled one, the n bytes at pos.
type hole struct {
	pos  int
	id   int64
	n    int32
	kind holeKind
}

// holeBytes is what a hole takes in memory (pos, id, n and kind, padded),
// for the answer cache's and the item memo's accounts.
const holeBytes = 24

// holeKind says what fills a hole.
type holeKind uint8

const (
	holeAvailable   holeKind = iota // imageTransparentAvailable
	holeImage                       // the image URL (with its version)
	holeTransparent                 // the transparent image URL
)

// splice is where a part of a kept item goes in an answer: in an
// encoder's body, the n bytes at at; in a kept answer's, before the byte at
// at, after the answer's first holes holes (a hole can be where a splice
// is). It names the item by its place in the memo, not by pointer, so that
// the cache's answers hold no pointers for the collector to follow.
type splice struct {
	at, n int32
	holes int32
	pos   uint32 // the item's index.Pos
	part  itemPart
}

// spliceBytes is what a splice takes in memory.
const spliceBytes = 20

// itemPart says which part of a kept item a splice is.
type itemPart uint8

const (
	partWhole   itemPart = iota // its list item members (appendListFields)
	partIdent                   // its id, slug, name and brand
	partAccords                 // its accords array
)

// answerCounts is what the meter counts each time an answer is served,
// from the cache or not: the perfume it shows, or the search it did not
// find.
type answerCounts struct {
	viewed      int64 // perfume id; 0: none
	viewKind    usage.ViewKind
	emptySearch string // the folded query; "": none
}

// newFrozen keeps the encoded answer body (its holes empty, at holes),
// filled from urls; body and holes stay the caller's.
func newFrozen(body []byte, holes []hole, counts answerCounts, urls view.Builder) *frozen {
	fz := &frozen{counts: counts}
	fz.filled.Store(fill(body, holes, nil, urls, true))
	return fz
}

// freezeEncoded keeps what en encoded, body: the kept items' parts in it
// (en.splices) become splices of the memo en.items, and the rest, with its
// holes, is filled from urls. body stays the caller's.
func freezeEncoded(body []byte, en *encoder, urls view.Builder) *frozen {
	if len(en.splices) == 0 || en.items == nil {
		return newFrozen(body, en.holes, en.counts, urls)
	}
	fz := &frozen{counts: en.counts, items: en.items}
	bp := bufPool.Get().(*[]byte)
	rest, holes, splices := unsplice((*bp)[:0], body, en.holes, en.splices)
	fz.filled.Store(fill(rest, holes, splices, urls, false))
	*bp = rest
	putBuf(bp)
	return fz
}

// unsplice appends to rest the bytes of body outside its splices, and
// returns them with the holes and splices moved to where they are in it.
// A hole at a splice's first byte is before it (it was noted before the
// splice's bytes were written; a splice is never empty).
func unsplice(rest, body []byte, holes []hole, splices []splice) ([]byte, []hole, []splice) {
	moved := make([]hole, len(holes))
	out := make([]splice, len(splices))
	prev, cut, j := 0, 0, 0
	for i, s := range splices {
		for ; j < len(holes) && holes[j].pos <= int(s.at); j++ {
			moved[j] = holes[j]
			moved[j].pos -= cut
		}
		rest = append(rest, body[prev:s.at]...)
		out[i] = splice{at: int32(len(rest)), holes: int32(j), pos: s.pos, part: s.part}
		prev = int(s.at + s.n)
		cut += int(s.n)
	}
	for ; j < len(holes); j++ {
		moved[j] = holes[j]
		moved[j].pos -= cut
	}
	return append(rest, body[prev:]...), moved, out
}

// size is about what fz holds in memory (the items its splices name are
// the memo's).
func (fz *frozen) size() int {
	f := fz.filled.Load()
	return len(f.body) + holeBytes*len(f.holes) + spliceBytes*len(f.splices) + 160
}

// answer returns the body to write and its Content-Length (nil: the
// body's length), filling the holes again when the image host's stamp
// moved since they were. An answer with splices is put together in buf,
// which the caller gives (it may be nil) and then owns.
func (fz *frozen) answer(urls view.Builder, buf []byte) ([]byte, []string) {
	f := fz.filled.Load()
	if len(f.holes) == 0 && len(f.splices) == 0 {
		return f.body, f.length
	}
	stamp, ok := urls.Stamp()
	if len(f.holes) > 0 && !(ok && f.stamped && f.stamp == stamp) {
		f = fill(f.body, f.holes, f.splices, urls, f.splices == nil)
		fz.filled.Store(f)
	}
	if len(f.splices) == 0 {
		return f.body, f.length
	}
	prev := 0
	for _, s := range f.splices {
		buf = append(buf, f.body[prev:s.at]...)
		buf = fz.items.itemAt(s.pos).appendPart(buf, s.part, urls, stamp, ok)
		prev = int(s.at)
	}
	return append(buf, f.body[prev:]...), nil
}

// fill returns body with the value of each of its holes written afresh
// from urls, in memory of its own, its splices moved with the values
// around them, and its Content-Length when length is set. The stamp is
// read before the values, so a change while they are read is filled by
// the next request.
func fill(body []byte, holes []hole, splices []splice, urls view.Builder, length bool) *filledAnswer {
	f := &filledAnswer{}
	f.stamp, f.stamped = urls.Stamp()
	if len(holes) == 0 {
		f.body = bytes.Clone(body)
		f.splices = slices.Clone(splices)
	} else {
		bp := bufPool.Get().(*[]byte)
		f.holes = make([]hole, 0, len(holes))
		*bp, f.holes = appendFilled((*bp)[:0], body, holes, urls, f.holes)
		f.body = bytes.Clone(*bp)
		putBuf(bp)
		if len(splices) > 0 {
			// A splice moves by what the holes before it grew.
			f.splices = make([]splice, len(splices))
			shift, j := int32(0), 0
			for i, s := range splices {
				for ; j < int(s.holes); j++ {
					shift += f.holes[j].n - holes[j].n
				}
				s.at += shift
				f.splices[i] = s
			}
		}
	}
	if length {
		f.length = []string{strconv.Itoa(len(f.body))}
	}
	return f
}

// appendFilled appends body with the value of each of its holes written
// afresh from urls; when filled is not nil, it appends to it the holes of
// what it appended (relative to where that begins) and returns it.
func appendFilled(b, body []byte, holes []hole, urls view.Builder, filled []hole) ([]byte, []hole) {
	base, prev := len(b), 0
	for _, h := range holes {
		b = append(b, body[prev:h.pos]...)
		at := len(b)
		switch h.kind {
		case holeImage:
			b = urls.AppendImageJSON(b, h.id)
		case holeTransparent:
			b = urls.AppendTransparentJSON(b, h.id)
		default:
			b = jsonenc.AppendBool(b, urls.TransparentAvailable(h.id))
		}
		prev = h.pos + int(h.n)
		if filled != nil {
			filled = append(filled, hole{pos: at - base, id: h.id, n: int32(len(b) - at), kind: h.kind})
		}
	}
	return append(b, body[prev:]...), filled
}
