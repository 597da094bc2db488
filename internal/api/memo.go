package api

import (
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/index"
)

// memoStringsMax bounds a memoStrings: names come from the catalogue
// (accords, perfumers), a few thousand at most, but a bound keeps a strange
// catalogue or many reloads from growing it without end.
const memoStringsMax = 1 << 16

// memoStrings remembers the results of a pure string function, such as an
// accord's colour (which folds the name on every call) or a perfumer's slug.
// Answers call it for every accord of every perfume, so reads must not
// contend: a sync.Map serves the steady state without locks.
type memoStrings struct {
	f    func(string) string
	m    sync.Map // string → string
	size atomic.Int64
}

func newMemoStrings(f func(string) string) *memoStrings { return &memoStrings{f: f} }

// get returns f(s), remembered.
func (m *memoStrings) get(s string) string {
	if v, ok := m.m.Load(s); ok {
		return v.(string)
	}
	v := m.f(s)
	if m.size.Load() < memoStringsMax {
		if _, loaded := m.m.LoadOrStore(s, v); !loaded {
			m.size.Add(1)
		}
	}
	return v
}

// DefaultAnswerCacheMB is how many megabytes of encoded answers the server
// keeps per catalogue by default.
const DefaultAnswerCacheMB = 32

// answerShards spreads the cache over locks; a power of two.
const answerShards = 16

// answerCache keeps encoded answers of the current catalogue, by request.
// The index is immutable, so an answer stays right until the catalogue is
// swapped, when the whole cache is dropped with it; the one member that can
// change meanwhile, imageTransparentAvailable, is a hole filled live on
// every write (see frozen). Profiles showed two costs that this removes
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
	mu    sync.RWMutex
	m     map[string]*frozen
	bytes int
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

// get returns the kept answer to key, or nil.
func (g *answerGen) get(key string) *frozen {
	sh := g.shard(key)
	sh.mu.RLock()
	fz := sh.m[key]
	sh.mu.RUnlock()
	return fz
}

// put keeps fz as the answer to key, dropping random answers of the shard
// until it fits (map order is random). An answer larger than a shard is not kept.
func (g *answerGen) put(key string, fz *frozen, limit int) {
	size := fz.size() + len(key)
	if size > limit {
		return
	}
	sh := g.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
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
// the live imageTransparentAvailable flags go.
type frozen struct {
	body  []byte
	holes []hole
}

// hole is where the flag of perfume id goes in a frozen body.
type hole struct {
	pos int
	id  int64
}

// size is about what fz holds in memory.
func (fz *frozen) size() int { return len(fz.body) + 16*len(fz.holes) + 64 }

// appendTo appends the answer with its holes filled.
func (fz *frozen) appendTo(b []byte, urls URLs) []byte {
	prev := 0
	for _, h := range fz.holes {
		b = append(b, fz.body[prev:h.pos]...)
		b = appendBool(b, urls.TransparentAvailable(h.id))
		prev = h.pos
	}
	return append(b, fz.body[prev:]...)
}
