package access

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// keyCache holds verified keys (and unknown hashes) by SHA-256, so that the
// store is asked about a key at most once per ttl per replica. When the store
// fails, an entry keeps answering until stale after it was fetched; an
// unknown key then fails closed. Concurrent misses of one key share one
// store lookup.
type keyCache struct {
	ttl, stale time.Duration
	max        int
	timeout    time.Duration
	clock      func() time.Time

	mu       sync.Mutex
	entries  map[apikey.Sum]*cacheEntry
	inflight map[apikey.Sum]*lookup
}

type cacheEntry struct {
	key     apikey.Key
	found   bool
	fetched time.Time
	// failed is when a refresh last failed; for failBackoff after it the
	// entry is served stale without asking the store again, so an outage
	// does not make every request wait for a lookup to time out.
	failed time.Time
}

// failBackoff is how long a failed refresh is not retried.
const failBackoff = time.Second

// lookup is one store lookup in flight; waiters read the result after done.
type lookup struct {
	done  chan struct{}
	entry cacheEntry
	err   error
	stale bool
}

// cacheResult says how a key was found, for metrics.
type cacheResult string

const (
	cacheHit   cacheResult = "hit"
	cacheMiss  cacheResult = "miss"
	cacheStale cacheResult = "stale"
	cacheError cacheResult = "error"
)

func newKeyCache(ttl, stale time.Duration, max int, timeout time.Duration, clock func() time.Time) *keyCache {
	return &keyCache{ttl: ttl, stale: stale, max: max, timeout: timeout, clock: clock,
		entries: make(map[apikey.Sum]*cacheEntry), inflight: make(map[apikey.Sum]*lookup)}
}

// get returns the key whose SHA-256 is sum (fetch is given its hex form): an error wrapping
// catalog.ErrNotFound when there is none, catalog.ErrUnavailable when the
// store cannot answer and no usable entry is cached.
func (c *keyCache) get(ctx context.Context, sum apikey.Sum, now time.Time, fetch func(context.Context, string) (apikey.Key, error)) (apikey.Key, cacheResult, error) {
	c.mu.Lock()
	if k, how, err, ok := c.usable(sum, now); ok {
		c.mu.Unlock()
		return k, how, err
	}
	if l := c.inflight[sum]; l != nil {
		// Someone is already asking the store. A stale entry answers at once
		// rather than waiting on a store that may be timing out.
		if e := c.entries[sum]; e != nil && e.found && now.Sub(e.fetched) < c.stale {
			stale := *e
			c.mu.Unlock()
			return stale.result(cacheStale)
		}
		c.mu.Unlock()
		return l.wait(ctx)
	}
	l := &lookup{done: make(chan struct{})}
	c.inflight[sum] = l
	c.mu.Unlock()

	// The lookup outlives the request that started it: other requests wait on it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	k, err := fetch(fctx, apikey.StoredHash(sum))
	cancel()

	c.mu.Lock()
	switch {
	case err == nil:
		l.entry = cacheEntry{key: k, found: true, fetched: now}
		c.put(sum, l.entry, now)
	case errors.Is(err, catalog.ErrNotFound):
		l.entry = cacheEntry{fetched: now}
		c.put(sum, l.entry, now)
	default:
		if e := c.entries[sum]; e != nil && now.Sub(e.fetched) < c.stale {
			// The back-off runs from when the failure was known, not from
			// when the (possibly timed-out) lookup began.
			e.failed = c.clock()
			l.entry, l.stale = *e, true
		} else {
			l.err = fmt.Errorf("look up key: %v: %w", err, catalog.ErrUnavailable)
		}
	}
	delete(c.inflight, sum)
	c.mu.Unlock()
	close(l.done)
	return l.result()
}

func (l *lookup) wait(ctx context.Context) (apikey.Key, cacheResult, error) {
	select {
	case <-l.done:
		return l.result()
	case <-ctx.Done():
		return apikey.Key{}, cacheError, fmt.Errorf("look up key: %w: %w", ctx.Err(), catalog.ErrUnavailable)
	}
}

func (l *lookup) result() (apikey.Key, cacheResult, error) {
	switch {
	case l.err != nil:
		return apikey.Key{}, cacheError, l.err
	case l.stale:
		return l.entry.result(cacheStale)
	}
	return l.entry.result(cacheMiss)
}

// cached is get without the store: the answer of an entry get would use
// as it is (fresh, or stale while a refresh is backing off), ok false
// when get would ask the store.
func (c *keyCache) cached(sum apikey.Sum, now time.Time) (k apikey.Key, how cacheResult, err error, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usable(sum, now)
}

// usable is cached under c.mu.
func (c *keyCache) usable(sum apikey.Sum, now time.Time) (apikey.Key, cacheResult, error, bool) {
	e := c.entries[sum]
	switch {
	case e == nil:
		return apikey.Key{}, "", nil, false
	case now.Sub(e.fetched) < c.ttl:
		k, how, err := e.result(cacheHit)
		return k, how, err, true
	case now.Sub(e.failed) < failBackoff && now.Sub(e.fetched) < c.stale:
		k, how, err := e.result(cacheStale)
		return k, how, err, true
	}
	return apikey.Key{}, "", nil, false
}

func (e cacheEntry) result(how cacheResult) (apikey.Key, cacheResult, error) {
	if !e.found {
		return apikey.Key{}, how, fmt.Errorf("key: %w", catalog.ErrNotFound)
	}
	return e.key, how, nil
}

// put stores an entry, first making room: entries past their stale bound
// go, then arbitrary ones, so the cache never exceeds max.
func (c *keyCache) put(sum apikey.Sum, e cacheEntry, now time.Time) {
	if _, ok := c.entries[sum]; !ok && len(c.entries) >= c.max {
		for h, old := range c.entries {
			if now.Sub(old.fetched) >= c.stale {
				delete(c.entries, h)
			}
		}
		for h := range c.entries {
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, h)
		}
	}
	c.entries[sum] = &e
}

// update refreshes the cached copies of keys changed in the store, so a
// suspension or revocation takes effect before the entry's ttl runs out.
func (c *keyCache) update(changed []apikey.Key, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range changed {
		sum, ok := apikey.SumOfHash(k.Hash)
		if !ok {
			continue
		}
		if e := c.entries[sum]; e != nil {
			*e = cacheEntry{key: k, found: true, fetched: now}
		}
	}
}
