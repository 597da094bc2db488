package api

import (
	"container/heap"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
)

// DefaultAnswerCacheMB is how many megabytes of encoded answers the server
// keeps per catalogue when its size is automatic and the process has no
// memory limit to take a share of.
const DefaultAnswerCacheMB = 32

// The automatic size (AnswerCacheMB 0): a tenth of the memory limit, but no
// more than a quarter of what the catalogue leaves of it (the rest is the
// collector's room) less what the item memo takes of that quarter, within
// [minAutoCache, maxAutoCache].
const (
	minAutoCache = 8 << 20
	maxAutoCache = 256 << 20
	// catalogueBytesPerPerfume is about what the loaded catalogue takes
	// of the heap per perfume, its kept neighbour lists included
	// (bench/RESULTS.md has the measurements).
	catalogueBytesPerPerfume = 1200
)

// minAnswerCost is the least an answer must have cost to make for the cache
// to keep it: below it, making the answer again costs little more than
// keeping it (an admission and the eviction it causes). The smallest
// answers (a few notes or accords, a brand search, a perfume without dupes)
// fall under it and are not kept; a detail or similar list from the kept
// neighbour lists and a page of perfumes are kept, since each remake would
// add half again to the CPU a request costs (bench/RESULTS.md). Among the kept,
// eviction by cost per byte sees that the scans outlive them.
const minAnswerCost = 10 * time.Microsecond

// answerShards spreads the cache over locks; a power of two.
const answerShards = 16

// answerCache keeps encoded answers of the current catalogue, by request.
// The index is immutable, so an answer stays right until the catalogue is
// swapped, when the whole cache is dropped with it; the one member that can
// change meanwhile, imageTransparentAvailable and the versioned image URLs,
// are holes filled live on every write (see frozen). Profiles showed two
// costs that this removes from repeated requests: the index's similarity,
// dupes and match scans (most of those endpoints' time) and the encoding
// of the answer itself (most of a list's).
//
// Real traffic is a long tail, so the cache spends its memory where it
// saves the most: an answer is kept only when it cost at least minCost to
// make, and a full shard evicts by GreedyDual-Size, the answer of lowest
// priority first, where an answer's priority is the shard's clock when it
// was last used plus its cost per byte, and the clock is the priority of
// the last answer evicted. Answers expensive to make and small to keep
// stay; one-off and cheap ones leave first, as the clock passes them.
type answerCache struct {
	off         bool
	mb          int   // > 0: a fixed size; 0: automatic
	memoryLimit int64 // for the automatic size; 0: none
	minCost     time.Duration
	cur         atomic.Pointer[answerGen]
	// stats outlive the generations; shard i of every generation counts
	// in stats[i], so requests of one shard share a counter's cache line.
	stats [answerShards]shardStats
}

// shardStats counts what the requests of one shard did, padded to the
// size of a cache line so that shards do not share one.
type shardStats struct {
	hits      atomic.Int64 // served without making the answer
	misses    atomic.Int64 // made the answer
	rejected  atomic.Int64 // made it, and did not keep it
	evictions atomic.Int64 // answers dropped to make room
	_         [32]byte
}

// answerGen is the cache of one catalogue.
type answerGen struct {
	ix      *index.Index
	stats   *[answerShards]shardStats
	limit   int // bytes per shard
	minCost time.Duration
	shards  [answerShards]answerShard
}

type answerShard struct {
	mu sync.RWMutex
	// clock is the priority of the last answer evicted (float64 bits);
	// written under mu, read by hits without it.
	clock   atomic.Uint64
	m       map[string]*frozen
	queue   answerQueue
	bytes   int
	pending map[string]*pendingAnswer
}

// answerSlot is a kept answer's place in its shard, part of the answer
// itself so that a hit reads one object.
type answerSlot struct {
	key       string
	footprint int     // bytes it takes: body, key and bookkeeping
	value     float64 // cost per byte, in nanoseconds
	// used is the shard's clock when the answer was last served (float64
	// bits); hits raise it without the write lock, and eviction reads it.
	used atomic.Uint64
	prio float64 // the priority it has in the queue; under mu
	pos  int     // its index in the queue; under mu
}

// touch records a use of the answer at clock (float64 bits). Only the
// first use after the clock moved writes: float64 bits of non-negative
// numbers order as the numbers do.
func (e *answerSlot) touch(clock uint64) {
	if e.used.Load() < clock {
		e.used.Store(clock)
	}
}

// priority is the answer's GreedyDual-Size priority as of its last use.
func (e *answerSlot) priority() float64 { return math.Float64frombits(e.used.Load()) + e.value }

// pendingAnswer is an answer one request is computing; requests for the
// same answer meanwhile wait for it rather than compute it again (a burst
// for a perfume nobody asked for yet costs one similarity scan, not one
// per request).
type pendingAnswer struct {
	done chan struct{}
	fz   *frozen
	err  error
}

// newAnswerCache returns a cache of mb megabytes per catalogue, sized from
// memoryLimit and the catalogue when mb is 0; mb < 0 turns it off.
func newAnswerCache(mb int, memoryLimit int64) *answerCache {
	return &answerCache{off: mb < 0, mb: mb, memoryLimit: memoryLimit, minCost: minAnswerCost}
}

// answerCacheBytes is the size of the cache for a catalogue of perfumes:
// mb megabytes when mb > 0, else automatic: a tenth of memoryLimit, no
// more than a quarter of what the catalogue leaves of it less the item
// memo's share (itemMemoBytes), within 8 and 256 MB; DefaultAnswerCacheMB
// without a limit.
func answerCacheBytes(mb int, memoryLimit int64, perfumes int) int {
	if mb > 0 {
		return mb << 20
	}
	if memoryLimit <= 0 || memoryLimit == math.MaxInt64 {
		return DefaultAnswerCacheMB << 20
	}
	n := min(memoryLimit/10, (memoryLimit-int64(perfumes)*catalogueBytesPerPerfume)/4-itemMemoBytes(memoryLimit, perfumes))
	return int(max(minAutoCache, min(maxAutoCache, n)))
}

// generation returns the cache of ix, starting a new one when ix is a new
// catalogue; nil when caching is off or ix is no longer current.
func (c *answerCache) generation(ix *index.Index) *answerGen {
	if c.off {
		return nil
	}
	g := c.cur.Load()
	if g != nil && g.ix == ix {
		return g
	}
	ng := &answerGen{ix: ix, stats: &c.stats, limit: answerCacheBytes(c.mb, c.memoryLimit, ix.Len()) / answerShards, minCost: c.minCost}
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

// shardOf picks the shard of key by its FNV-1a hash.
func shardOf(key string) int {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= 16777619
	}
	return int(h % answerShards)
}

// lookup returns the kept answer to key; else the pending one, with lead
// set when the caller is to compute it and then call finish. A request that
// waits for the pending answer counts as a hit: it is served without
// making it.
func (g *answerGen) lookup(key string) (fz *frozen, p *pendingAnswer, lead bool) {
	i := shardOf(key)
	sh, st := &g.shards[i], &g.stats[i]
	sh.mu.RLock()
	fz = sh.m[key]
	sh.mu.RUnlock()
	if fz != nil {
		st.hits.Add(1)
		fz.touch(sh.clock.Load())
		return fz, nil, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if fz = sh.m[key]; fz != nil {
		st.hits.Add(1)
		fz.touch(sh.clock.Load())
		return fz, nil, false
	}
	if p = sh.pending[key]; p != nil {
		st.hits.Add(1)
		return nil, p, false
	}
	st.misses.Add(1)
	p = &pendingAnswer{done: make(chan struct{})}
	sh.pending[key] = p
	return nil, p, true
}

// finish ends the computation of key, which took cost: a good answer is
// kept when it is worth it, and the requests waiting for it are woken.
func (g *answerGen) finish(key string, p *pendingAnswer, fz *frozen, err error, cost time.Duration) {
	i := shardOf(key)
	sh, st := &g.shards[i], &g.stats[i]
	sh.mu.Lock()
	delete(sh.pending, key)
	kept, evicted := false, 0
	if err == nil && cost >= g.minCost {
		kept, evicted = sh.put(key, fz, cost, g.limit)
	}
	sh.mu.Unlock()
	if err == nil && !kept {
		st.rejected.Add(1)
	}
	if evicted > 0 {
		st.evictions.Add(int64(evicted))
	}
	p.fz, p.err = fz, err
	close(p.done)
}

// slotOverhead is about what keeping an answer costs beside its body and
// key: its slot, map entry and queue entry.
const slotOverhead = 96

// put keeps fz, made in cost, as the answer to key, evicting the answers of
// lowest priority until it fits within limit bytes; the caller holds mu. An
// answer larger than a shard is not kept. It returns whether fz was kept
// and how many answers were evicted.
func (sh *answerShard) put(key string, fz *frozen, cost time.Duration, limit int) (kept bool, evicted int) {
	size := fz.size() + len(key) + slotOverhead
	if size > limit {
		return false, 0
	}
	if old, ok := sh.m[key]; ok {
		sh.remove(old)
	}
	for sh.bytes+size > limit && len(sh.queue) > 0 {
		e := sh.queue[0]
		if p := e.priority(); p > e.prio { // used since it was queued: requeue, not evict
			e.prio = p
			heap.Fix(&sh.queue, 0)
			continue
		}
		sh.remove(e)
		sh.clock.Store(math.Float64bits(e.prio))
		evicted++
	}
	fz.key, fz.footprint, fz.value = key, size, float64(cost.Nanoseconds())/float64(size)
	fz.used.Store(sh.clock.Load())
	fz.prio = fz.priority()
	heap.Push(&sh.queue, fz)
	sh.m[key] = fz
	sh.bytes += size
	return true, evicted
}

// remove drops fz from the shard; the caller holds mu.
func (sh *answerShard) remove(fz *frozen) {
	heap.Remove(&sh.queue, fz.pos)
	delete(sh.m, fz.key)
	sh.bytes -= fz.footprint
}

// answerQueue is a shard's answers as a min-heap by priority
// (container/heap).
type answerQueue []*frozen

func (q answerQueue) Len() int           { return len(q) }
func (q answerQueue) Less(i, j int) bool { return q[i].prio < q[j].prio }
func (q answerQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].pos, q[j].pos = i, j
}
func (q *answerQueue) Push(x any) {
	fz := x.(*frozen)
	fz.pos = len(*q)
	*q = append(*q, fz)
}
func (q *answerQueue) Pop() any {
	old := *q
	fz := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return fz
}

// AnswerCacheStats is what the answer cache has done since the process
// started, over every catalogue, and what it holds now.
type AnswerCacheStats struct {
	// Hits are requests served without making their answer (kept, or
	// being made by another request); Misses made it.
	Hits, Misses int64
	// Rejected are answers made and not kept: cheaper to make than the
	// cache's threshold, or larger than a shard.
	Rejected int64
	// Evictions are answers dropped to make room for others.
	Evictions int64
	// Bytes is about the memory the current catalogue's answers take;
	// LimitBytes what they may take (0: the cache is off or not started).
	Bytes, LimitBytes int64
}

// statsNow sums the counters and the current generation's size.
func (c *answerCache) statsNow() AnswerCacheStats {
	var s AnswerCacheStats
	for i := range c.stats {
		st := &c.stats[i]
		s.Hits += st.hits.Load()
		s.Misses += st.misses.Load()
		s.Rejected += st.rejected.Load()
		s.Evictions += st.evictions.Load()
	}
	if g := c.cur.Load(); g != nil {
		s.LimitBytes = int64(g.limit) * answerShards
		for i := range g.shards {
			sh := &g.shards[i]
			sh.mu.RLock()
			s.Bytes += int64(sh.bytes)
			sh.mu.RUnlock()
		}
	}
	return s
}
