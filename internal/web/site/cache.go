package site

import (
	"html/template"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// pageCache keeps perfume pages for the catalogue being served, so that a
// page asked again skips the similarity scans and the templates: its head
// and content, and the whole page as last rendered for a visitor
// (web.Kept), served again to the next visitor of the same kind with only
// its nonce new. Entries are dropped with the catalogue, after pageTTL
// (similar perfumes' pictures change as transparent images are made), and
// when the page's own picture changed; the whole cache is dropped when it
// holds pageCacheMax pages or pageCacheBytes.
type pageCache struct {
	mu    sync.Mutex
	ix    *index.Index
	m     map[string]cachedPage
	bytes int
}

type cachedPage struct {
	page        web.Page
	kept        *web.Kept
	transparent bool
	made        time.Time
}

const (
	pageCacheMax   = 4096
	pageCacheBytes = 48 << 20
	pageTTL        = 10 * time.Minute
)

// get returns the kept page of slug in ix, if it is still good.
func (c *pageCache) get(ix *index.Index, slug string, transparent bool, now time.Time) (web.Page, *web.Kept, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix {
		return web.Page{}, nil, false
	}
	p, ok := c.m[slug]
	if !ok || p.transparent != transparent || now.Sub(p.made) > pageTTL {
		return web.Page{}, nil, false
	}
	return p.page, p.kept, true
}

// put keeps the page of slug in ix, and returns where its rendering is
// kept.
func (c *pageCache) put(ix *index.Index, slug string, transparent bool, now time.Time, p web.Page) *web.Kept {
	size := cachedSize(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix || len(c.m) >= pageCacheMax || c.bytes+size > pageCacheBytes {
		c.ix, c.m, c.bytes = ix, make(map[string]cachedPage, 256), 0
	}
	if old, ok := c.m[slug]; ok {
		c.bytes -= cachedSize(old.page)
	}
	kept := new(web.Kept)
	c.m[slug] = cachedPage{page: p, kept: kept, transparent: transparent, made: now}
	c.bytes += size
	return kept
}

// cachedSize is about what a perfume page takes in the cache: its texts,
// and once more as much with the layout around them for its rendering.
func cachedSize(p web.Page) int {
	n := len(p.Title) + len(p.Description) + len(p.Path) + len(p.OGImage) + len(p.Markdown)
	for _, ld := range p.JSONLD {
		n += len(ld)
	}
	for _, c := range p.Crumbs {
		n += len(c.Name) + len(c.Path)
	}
	if h, ok := p.Data.(template.HTML); ok {
		n += len(h)
	}
	const layout = 6 << 10 // the layout's own bytes, the banner included
	return 2*n + layout + 256
}
