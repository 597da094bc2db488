package images

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// servedImage is an image ready to send: its bytes and strong ETag.
type servedImage struct {
	data []byte
	etag string
}

// newServed computes the ETag of data: a hash of the bytes, so it is the
// same on every replica that has (or draws) the same image.
func newServed(data []byte) servedImage {
	sum := sha256.Sum256(data)
	return servedImage{data: data, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
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
