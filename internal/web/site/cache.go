package site

import (
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// pageCache keeps rendered perfume pages (their head and their content,
// without the layout, which depends on the visitor) for the catalogue
// being served, so that a page asked again skips the similarity scans and
// the template. Entries are dropped with the catalogue, after pageTTL
// (similar perfumes' pictures change as transparent images are made), and
// when the page's own picture changed; the whole cache is dropped when it
// is full.
type pageCache struct {
	mu sync.Mutex
	ix *index.Index
	m  map[string]cachedPage
}

type cachedPage struct {
	page        web.Page
	transparent bool
	made        time.Time
}

const (
	pageCacheMax = 4096
	pageTTL      = 10 * time.Minute
)

// get returns the kept page of slug in ix, if it is still good.
func (c *pageCache) get(ix *index.Index, slug string, transparent bool, now time.Time) (web.Page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix {
		return web.Page{}, false
	}
	p, ok := c.m[slug]
	if !ok || p.transparent != transparent || now.Sub(p.made) > pageTTL {
		return web.Page{}, false
	}
	return p.page, true
}

// put keeps the page of slug in ix.
func (c *pageCache) put(ix *index.Index, slug string, transparent bool, now time.Time, p web.Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix || len(c.m) >= pageCacheMax {
		c.ix, c.m = ix, make(map[string]cachedPage, 256)
	}
	c.m[slug] = cachedPage{page: p, transparent: transparent, made: now}
}
