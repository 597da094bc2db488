package site

import (
	"html/template"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// pageCache keeps perfume pages for the catalogue being served, so that a
// page asked again skips the similarity scans and the writing of its content:
// its head and content, and, once it is asked again, the whole page as
// last rendered for a visitor (web.Kept), served again to the next visitor
// of the same kind with only its nonce new. Entries are dropped with the catalogue, after pageTTL
// (similar perfumes' pictures change as transparent images are made), and
// when the page's own picture changed.
//
// It holds at most pageCacheBytes (about pageCacheMax pages) in two
// generations: pages go into the new one; when it is full, the old one is
// dropped and the new one becomes old. A page found in the old generation
// moves to the new one, so the pages asked often stay while the rest of
// a long tail passes through.
type pageCache struct {
	mu       sync.Mutex
	ix       *index.Index
	cur, old map[string]cachedPage
	curBytes int
}

type cachedPage struct {
	page        web.Page
	kept        *web.Kept
	transparent bool
	made        time.Time
	size        int
}

const (
	pageCacheMax   = 4096
	pageCacheBytes = 48 << 20
	pageTTL        = 10 * time.Minute
)

// get returns the kept page of slug in ix, and where its rendering is
// kept, if it is still good.
func (c *pageCache) get(ix *index.Index, slug string, transparent bool, now time.Time) (web.Page, *web.Kept, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix {
		return web.Page{}, nil, false
	}
	p, ok := c.cur[slug]
	if !ok {
		if p, ok = c.old[slug]; ok {
			delete(c.old, slug)
			c.add(slug, p)
		}
	}
	if !ok || p.transparent != transparent || now.Sub(p.made) > pageTTL {
		return web.Page{}, nil, false
	}
	return p.page, p.kept, true
}

// put keeps the page of slug in ix.
func (c *pageCache) put(ix *index.Index, slug string, transparent bool, now time.Time, p web.Page) {
	kept := new(web.Kept)
	cp := cachedPage{page: p, kept: kept, transparent: transparent, made: now, size: cachedSize(p)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix {
		c.ix, c.cur, c.old, c.curBytes = ix, nil, nil, 0
	}
	delete(c.old, slug)
	c.add(slug, cp)
}

// add puts p in the new generation, turning generations first when it
// is full. c.mu is held.
func (c *pageCache) add(slug string, p cachedPage) {
	if old, ok := c.cur[slug]; ok {
		c.curBytes -= old.size
	} else if len(c.cur) >= pageCacheMax/2 || c.curBytes+p.size > pageCacheBytes/2 {
		c.old, c.cur, c.curBytes = c.cur, nil, 0
	}
	if c.cur == nil {
		c.cur = make(map[string]cachedPage, 256)
	}
	c.cur[slug] = p
	c.curBytes += p.size
}

// cachedSize is about what a perfume page takes in the cache: its texts,
// and, counted from the start, once more as much with the layout around
// them for the rendering it keeps once asked again.
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
