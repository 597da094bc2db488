package api

import (
	"math"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
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

// DefaultAnswerCacheMB is how many megabytes of encoded answers the server
// keeps per catalogue by default.
const DefaultAnswerCacheMB = 32

// answerShards spreads the cache over locks; a power of two.
const answerShards = 16

// answerCache keeps encoded answers of the current catalogue, by request.
// The index is immutable, so an answer stays right until the catalogue is
// swapped, when the whole cache is dropped with it; the one member that can
// change meanwhile, imageTransparentAvailable and the versioned image URLs,
// are holes filled live on every write (see frozen). Profiles showed two costs that this removes
// from repeated requests: the index's similarity, dupes and match scans
// (most of those endpoints' time, and the similar perfumes were most of a
// detail's) and the encoding of the answer itself (most of a list's).
// Popular perfumes and queries are asked for again and again.
type answerCache struct {
	perShard int // bytes per shard; 0: off
	cur      atomic.Pointer[answerGen]
}

// answerGen is the cache of one catalogue.
type answerGen struct {
	ix     *index.Index
	shards [answerShards]answerShard
}

type answerShard struct {
	mu      sync.RWMutex
	m       map[string]*frozen
	bytes   int
	pending map[string]*pendingAnswer
}

// pendingAnswer is an answer one request is computing; requests for the
// same answer meanwhile wait for it rather than compute it again (a burst
// for a perfume nobody asked for yet costs one similarity scan, not one
// per request).
type pendingAnswer struct {
	done chan struct{}
	fz   *frozen
	err  error
}

// newAnswerCache returns a cache of about mb megabytes; mb ≤ 0 turns it off.
func newAnswerCache(mb int) *answerCache {
	c := &answerCache{}
	if mb > 0 {
		c.perShard = mb << 20 / answerShards
	}
	return c
}

// generation returns the cache of ix, starting a new one when ix is a new
// catalogue; nil when caching is off or ix is no longer current.
func (c *answerCache) generation(ix *index.Index) *answerGen {
	if c.perShard == 0 {
		return nil
	}
	g := c.cur.Load()
	if g != nil && g.ix == ix {
		return g
	}
	ng := &answerGen{ix: ix}
	for i := range ng.shards {
		ng.shards[i].m = make(map[string]*frozen)
		ng.shards[i].pending = make(map[string]*pendingAnswer)
	}
	if c.cur.CompareAndSwap(g, ng) {
		return ng
	}
	if g = c.cur.Load(); g != nil && g.ix == ix {
		return g
	}
	return nil
}

func (g *answerGen) shard(key string) *answerShard { return &g.shards[fnv32(key)%answerShards] }

// lookup returns the kept answer to key; else the pending one, with lead
// set when the caller is to compute it and then call finish.
func (g *answerGen) lookup(key string) (fz *frozen, p *pendingAnswer, lead bool) {
	sh := g.shard(key)
	sh.mu.RLock()
	fz = sh.m[key]
	sh.mu.RUnlock()
	if fz != nil {
		return fz, nil, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if fz = sh.m[key]; fz != nil {
		return fz, nil, false
	}
	if p = sh.pending[key]; p != nil {
		return nil, p, false
	}
	p = &pendingAnswer{done: make(chan struct{})}
	sh.pending[key] = p
	return nil, p, true
}

// finish ends the computation of key: a good answer is kept (within
// limit bytes per shard), and the requests waiting for it are woken.
func (g *answerGen) finish(key string, p *pendingAnswer, fz *frozen, err error, limit int) {
	sh := g.shard(key)
	sh.mu.Lock()
	delete(sh.pending, key)
	if err == nil {
		sh.put(key, fz, limit)
	}
	sh.mu.Unlock()
	p.fz, p.err = fz, err
	close(p.done)
}

// put keeps fz as the answer to key, dropping random answers of the shard
// until it fits (map order is random); the caller holds mu. An answer
// larger than a shard is not kept.
func (sh *answerShard) put(key string, fz *frozen, limit int) {
	size := fz.size() + len(key)
	if size > limit {
		return
	}
	if old, ok := sh.m[key]; ok {
		sh.bytes -= old.size() + len(key)
	}
	for k, v := range sh.m {
		if sh.bytes+size <= limit {
			break
		}
		sh.bytes -= v.size() + len(k)
		delete(sh.m, k)
	}
	sh.m[key] = fz
	sh.bytes += size
}

// fnv32 is the FNV-1a hash of s, to pick a shard.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
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
	filled atomic.Pointer[filledAnswer]
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
	n := len(fz.body) + 24*len(fz.holes) + 128
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
			b = jsonenc.AppendString(b, urls.Image(h.id))
		case holeTransparent:
			b = jsonenc.AppendString(b, urls.Transparent(h.id))
		default:
			b = jsonenc.AppendBool(b, urls.TransparentAvailable(h.id))
		}
		prev = h.pos
	}
	return append(b, fz.body[prev:]...)
}
