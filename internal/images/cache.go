package images

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// servedImage is an image ready to send: its bytes, strong ETag and
// content version (what "?v=" must say for the answer to be immutable).
type servedImage struct {
	data    []byte
	etag    string
	version version
}

// newServed makes a stored image ready to send: its ETag and version are
// hashes of the bytes, the same on every replica.
func newServed(data []byte) servedImage {
	sum := sha256.Sum256(data)
	return servedImage{data: data, etag: etagOf(&sum), version: versionOfSum(&sum)}
}

// newDrawn makes a drawn image ready to send: its version is its drawing's.
func newDrawn(data []byte, v version) servedImage {
	sum := sha256.Sum256(data)
	return servedImage{data: data, etag: etagOf(&sum), version: v}
}

// lru keeps generated images up to a byte budget, dropping the least
// recently used. Generated images are cheap to redraw, so the cache only
// saves CPU; the CDN in front does most of the caching.
type lru struct {
	mu     sync.Mutex
	budget int64
	used   int64
	order  *list.List // front = most recent; values are *lruEntry
	items  map[string]*list.Element
}

type lruEntry struct {
	key string
	img servedImage
}

func newLRU(budget int64) *lru {
	return &lru{budget: budget, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru) get(key string) (servedImage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return servedImage{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry).img, true
}

func (c *lru) put(key string, img servedImage) {
	size := int64(len(img.data))
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.used -= int64(len(el.Value.(*lruEntry).img.data))
		el.Value.(*lruEntry).img = img
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&lruEntry{key: key, img: img})
	}
	c.used += size
	for c.used > c.budget {
		el := c.order.Back()
		e := el.Value.(*lruEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.used -= int64(len(e.img.data))
	}
}
