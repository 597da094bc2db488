package api

import (
	"math"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
)

// cacheKey names an answer in the answer cache: the route and every field
// of its parsed, validated query q, in order. It is the one place keys are
// made: a field added to a query is part of its key without anyone having
// to remember it (answers_test.go holds every route to that). q is a
// struct of strings, numbers and slices of them; it is read by reflection
// (some 40 ns for a short query, the key's one allocation included).
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

// frozen is an encoded answer, final newline included, with holes where
// the live imageTransparentAvailable flags and image URLs go, and what
// serving it counts.
type frozen struct {
	body   []byte
	holes  []hole
	counts answerCounts
	length []string // Content-Length of body, when there are no holes
	// filled is the answer with its holes filled, kept for refillEvery:
	// repeated requests then write it as it is. Availability changes
	// slowly (the image host itself reloads it every minute), so an
	// answer may lag it by that second at most.
	filled     atomic.Pointer[filledAnswer]
	answerSlot // its place in the cache, once kept
}

// refillEvery is how long a filled answer is written before its holes are
// filled again.
const refillEvery = time.Second

// filledAnswer is a frozen answer with its holes filled at a time.
type filledAnswer struct {
	body   []byte
	length []string
	at     time.Time
}

// hole is where a live member of perfume id goes in a frozen body.
type hole struct {
	pos  int
	id   int64
	kind holeKind
}

// holeBytes is what a hole takes in memory (pos, id and kind, padded), for
// the answer cache's and the item memo's accounts.
const holeBytes = 24

// holeKind says what fills a hole.
type holeKind uint8

const (
	holeAvailable   holeKind = iota // imageTransparentAvailable
	holeImage                       // the image URL (with its version)
	holeTransparent                 // the transparent image URL
)

// answerCounts is what the meter counts each time an answer is served,
// from the cache or not: the perfume it shows, or the search it did not
// find.
type answerCounts struct {
	viewed      int64 // perfume id; 0: none
	viewKind    usage.ViewKind
	emptySearch string // the folded query; "": none
}

// newFrozen keeps an encoded answer; body and holes become its own.
func newFrozen(body []byte, holes []hole, counts answerCounts) *frozen {
	fz := &frozen{body: body, holes: holes, counts: counts}
	if len(holes) == 0 {
		fz.length = []string{strconv.Itoa(len(body))}
	}
	return fz
}

// size is about what fz holds in memory, its filled copy included.
func (fz *frozen) size() int {
	n := len(fz.body) + holeBytes*len(fz.holes) + 128
	if len(fz.holes) > 0 {
		n += len(fz.body) + 80*len(fz.holes) // a URL is longer than a flag
	}
	return n
}

// answer returns the body to write and its Content-Length, filling the
// holes anew when the last filling is older than refillEvery.
func (fz *frozen) answer(urls view.URLs, now time.Time) ([]byte, []string) {
	if len(fz.holes) == 0 {
		return fz.body, fz.length
	}
	if f := fz.filled.Load(); f != nil && now.Sub(f.at) < refillEvery {
		return f.body, f.length
	}
	b := fz.appendTo(make([]byte, 0, len(fz.body)+len(fz.holes)), urls)
	f := &filledAnswer{body: b, length: []string{strconv.Itoa(len(b))}, at: now}
	fz.filled.Store(f)
	return f.body, f.length
}

// appendTo appends the answer with its holes filled.
func (fz *frozen) appendTo(b []byte, urls view.URLs) []byte {
	prev := 0
	for _, h := range fz.holes {
		b = append(b, fz.body[prev:h.pos]...)
		switch h.kind {
		case holeImage:
			b = urls.AppendImageJSON(b, h.id)
		case holeTransparent:
			b = urls.AppendTransparentJSON(b, h.id)
		default:
			b = jsonenc.AppendBool(b, urls.TransparentAvailable(h.id))
		}
		prev = h.pos
	}
	return append(b, fz.body[prev:]...)
}
