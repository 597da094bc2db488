package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// memShards spreads keys over independent locks so that requests of
// different keys rarely wait for each other.
const memShards = 64

// sweepEvery is how often a shard forgets keys idle for longer than their
// longest window, which bounds memory by the keys active in the last day.
const sweepEvery = time.Minute

// MemOptions configures a MemLimiter.
type MemOptions struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ExactMax is the largest limit counted with exact timestamps;
	// 0 means DefaultExactMax.
	ExactMax int64
}

// MemLimiter is the in-process Limiter: exact on one replica, with memory
// per key bounded whatever its limits (at most about 16 KiB: up to
// ExactMax timestamps or 1441 bucket counters per window).
type MemLimiter struct {
	now      func() time.Time
	exactMax int64
	seed     maphash.Seed
	shards   [memShards]memShard
}

type memShard struct {
	mu        sync.Mutex
	keys      map[string]*keyWindows
	nextSweep int64
}

// keyWindows is the state of one key.
type keyWindows struct {
	last        int64 // newest time seen; the clock never goes back for a key
	idleUntil   int64 // after it, every window is empty and the key can go
	minute, day counter
	// the windows' limits at the last decision, which CancelN needs
	minuteLimit, dayLimit int64
}

var _ Limiter = (*MemLimiter)(nil)

// NewMemLimiter returns an empty in-process limiter.
func NewMemLimiter(opts MemOptions) *MemLimiter {
	m := &MemLimiter{now: opts.Now, exactMax: opts.ExactMax, seed: maphash.MakeSeed()}
	if m.now == nil {
		m.now = time.Now
	}
	if m.exactMax <= 0 {
		m.exactMax = DefaultExactMax
	}
	for i := range m.shards {
		m.shards[i].keys = make(map[string]*keyWindows)
	}
	return m
}

// Allow decides and, when admitted, counts one request of id. It never
// returns an error.
func (m *MemLimiter) Allow(_ context.Context, id string, l apikey.Limits) (Decision, error) {
	return m.decide(id, l, true, 1), nil
}

// AllowN decides and, when admitted, counts a call of n requests of id
// (see Limiter). It never returns an error.
func (m *MemLimiter) AllowN(_ context.Context, id string, l apikey.Limits, n int64) (Decision, error) {
	return m.decide(id, l, true, n), nil
}

// Peek reports what Allow would decide, without counting anything. It
// never returns an error.
func (m *MemLimiter) Peek(_ context.Context, id string, l apikey.Limits) (Decision, error) {
	return m.decide(id, l, false, 1), nil
}

// Cancel un-counts a request that Allow admitted at at (Decision.At), for
// a caller whose other check refused it after all: refused requests must not
// count.
func (m *MemLimiter) Cancel(id string, at time.Time) { m.CancelN(id, at, 1) }

// CancelN un-counts a call of n requests that AllowN admitted at at, each
// window as many as it counted (WindowNeed).
func (m *MemLimiter) CancelN(id string, at time.Time, n int64) {
	sh := m.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	kw := sh.keys[id]
	if kw == nil {
		return
	}
	t := at.UnixNano()
	for _, w := range [...]struct {
		c     counter
		limit int64
	}{{kw.minute, kw.minuteLimit}, {kw.day, kw.dayLimit}} {
		if w.c == nil {
			continue
		}
		for range WindowNeed(n, w.limit) {
			w.c.cancel(t)
		}
	}
}

// Status reports the memory backend, which is never degraded.
func (m *MemLimiter) Status() Status { return Status{Backend: "memory"} }

// ExactMax is the largest limit this limiter counts exactly; another
// backend that shadows it must use the same.
func (m *MemLimiter) ExactMax() int64 { return m.exactMax }

// Len returns the number of keys held, for tests and metrics.
func (m *MemLimiter) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.keys)
		sh.mu.Unlock()
	}
	return n
}

func (m *MemLimiter) shard(id string) *memShard {
	return &m.shards[maphash.String(m.seed, id)%memShards]
}

func (m *MemLimiter) decide(id string, l apikey.Limits, commit bool, n int64) Decision {
	now := m.now().UnixNano()
	sh := m.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now >= sh.nextSweep {
		sh.sweep(now)
	}
	kw := sh.keys[id]
	if kw == nil && !commit {
		// Nothing counted: every window has room (the common case of Peek).
		return NewDecision(time.Unix(0, now), true, WindowCount{Limit: l.PerMinute}, WindowCount{Limit: l.PerDay})
	}
	if kw == nil {
		kw = &keyWindows{}
		sh.keys[id] = kw
	}
	now = max(now, kw.last)
	kw.last = now
	mNeed, dNeed := WindowNeed(n, l.PerMinute), WindowNeed(n, l.PerDay)
	mc := m.prepare(&kw.minute, l.PerMinute, MinuteSpan, MinuteBucket, now, mNeed)
	dc := m.prepare(&kw.day, l.PerDay, DaySpan, DayBucket, now, dNeed)
	kw.minuteLimit, kw.dayLimit = l.PerMinute, l.PerDay
	allowed := !mc.Refused && !dc.Refused
	if allowed && commit {
		for _, w := range [...]struct {
			c    counter
			need int64
		}{{kw.minute, mNeed}, {kw.day, dNeed}} {
			if w.c == nil {
				continue
			}
			for range w.need {
				w.c.add(now)
			}
		}
		kw.idleUntil = now + int64(MinuteSpan+MinuteBucket)
		if kw.day != nil {
			kw.idleUntil = now + int64(DaySpan+DayBucket)
		}
		if mc.Limit > 0 {
			mc.Used += mNeed
		}
		if dc.Limit > 0 {
			dc.Used += dNeed
		}
	}
	return NewDecision(time.Unix(0, now), allowed, windowCount(kw.minute, mc), windowCount(kw.day, dc))
}

// prepare fits and prunes one window and reports whether it has room for
// need more requests.
func (m *MemLimiter) prepare(c *counter, limit int64, span, width time.Duration, now, need int64) WindowCount {
	if limit <= 0 {
		*c = nil
		return WindowCount{}
	}
	*c = fitCounter(*c, int64(span), int64(width), limit, m.exactMax)
	(*c).prune(now)
	wc := WindowCount{Limit: limit, Used: (*c).used()}
	if wc.Used+need > limit {
		wc.Refused = true
		wc.FreeAt = time.Unix(0, (*c).freeAt(limit, need))
	}
	return wc
}

// windowCount adds the oldest expiry once the request has been counted.
func windowCount(c counter, wc WindowCount) WindowCount {
	if c != nil && c.used() > 0 {
		wc.OldestExpiry = time.Unix(0, c.oldestExpiry())
	}
	return wc
}

// sweep forgets idle keys; called under the shard's lock.
func (sh *memShard) sweep(now int64) {
	for id, kw := range sh.keys {
		if now > kw.idleUntil {
			delete(sh.keys, id)
		}
	}
	sh.nextSweep = now + int64(sweepEvery)
}
