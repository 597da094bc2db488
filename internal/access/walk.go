package access

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// The scraping signals' kinds, stored beside usage's (usage.SignalLimitHits
// and the others) in the same table.
const (
	// SignalPageWalk: a key walks the list page after page.
	SignalPageWalk = "page_walk"
	// SignalSlugWalk: a key fetches the details in slug (id) order.
	SignalSlugWalk = "slug_walk"
	// SignalFeedWalk: a key pages through the change feed past
	// AbuseConfig.FeedWalk records within the window: walks of the whole
	// catalogue again and again.
	SignalFeedWalk = "feed_walk"
)

// A walk is a run of one key's requests that goes on in one direction: the
// pages of the list (1, 2, 3, …) or the slugs of the details ("a…", "b…",
// …). Clients fetch in parallel, so answers may arrive out of order, and
// one key may serve several clients at once: a walk survives a few
// requests off it (late pages, a page again, another client's slug) and
// ends after walkStrays of them in a row, a new one starting at the last.
const (
	// walkStrays is how many requests off a walk, in a row, end it.
	walkStrays = 8
	// pageSlack is how far past the walk's last page a page still goes on
	// with it (the pages between are on their way).
	pageSlack = 4
	// maxWalkPage bounds the pages followed; the API refuses larger ones.
	maxWalkPage = 1_000_000_000
	// maxWalkSlug bounds the slugs followed (longer ones are not slugs),
	// and so the memory of a walk.
	maxWalkSlug = 200
)

// pageWalk follows one key's walk through the list's pages.
type pageWalk struct {
	start       time.Time // of the walk
	first, last int
	strays      int
	reported    time.Time // when this kind was last raised for the key
}

// note takes one page request and returns how many pages the walk covers.
func (w *pageWalk) note(page int, now time.Time, window time.Duration) int {
	switch {
	case w.start.IsZero() || now.Sub(w.start) >= window:
		*w = pageWalk{start: now, first: page, last: page, reported: w.reported}
	case page > w.last && page <= w.last+pageSlack:
		w.last, w.strays = page, 0
	case page >= w.first && page <= w.last:
		w.strays = 0 // late, or again: the walk neither goes on nor ends
	default:
		if w.strays++; w.strays >= walkStrays {
			*w = pageWalk{start: now, first: page, last: page, reported: w.reported}
		}
	}
	return w.last - w.first + 1
}

// slugWalk follows one key's walk through the details in slug order.
type slugWalk struct {
	start       time.Time
	first, last string
	n           int // details in ascending order, first included
	strays      int
	reported    time.Time
}

// note takes one detail request and returns how many details the walk has
// fetched in order.
func (w *slugWalk) note(slug string, now time.Time, window time.Duration) int {
	switch {
	case w.start.IsZero() || now.Sub(w.start) >= window:
		*w = slugWalk{start: now, first: slug, last: slug, n: 1, reported: w.reported}
	case slug > w.last:
		w.last, w.n, w.strays = slug, w.n+1, 0
	case slug == w.last:
	default:
		if w.strays++; w.strays >= walkStrays {
			*w = slugWalk{start: now, first: slug, last: slug, n: 1, reported: w.reported}
		}
	}
	return w.n
}

// feedWalk counts one key's records of the change feed within a window
// from its first page.
type feedWalk struct {
	start    time.Time
	pages    int
	records  int64
	reported time.Time
}

// note takes one change feed page of records and returns the records the
// walk has asked for in its window.
func (w *feedWalk) note(records int64, now time.Time, window time.Duration) int64 {
	if w.start.IsZero() || now.Sub(w.start) >= window {
		*w = feedWalk{start: now, reported: w.reported}
	}
	w.pages++
	w.records += records
	return w.records
}

// walker is the walks of one key, an element of walkers' recency list.
type walker struct {
	prefix     string
	prev, next *walker
	pages      pageWalk
	slugs      slugWalk
	feed       feedWalk
}

// walkers follows the walks of at most cfg.MaxWalkers keys: a map and a
// list from the most to the least recently seen, whose tail is forgotten
// to make room. Each request costs a map lookup and a few pointer moves
// under one lock, and only on the two endpoints watched.
type walkers struct {
	cfg AbuseConfig

	mu    sync.Mutex
	byKey map[string]*walker
	list  walker // sentinel: list.next is the most recent, list.prev the least
}

func newWalkers(cfg AbuseConfig) *walkers {
	ws := &walkers{cfg: cfg, byKey: make(map[string]*walker)}
	ws.list.next, ws.list.prev = &ws.list, &ws.list
	return ws
}

// note follows c, a call of the key prefix admitted at now, and returns
// the signal it raises, if any.
func (ws *walkers) note(c *Call, prefix string, now time.Time) (usage.Signal, bool) {
	endpoint, ip := c.Endpoint, c.ClientIP
	switch endpoint {
	case ws.cfg.ListEndpoint:
		page, ok := pageParam(c.Query)
		if !ok {
			return usage.Signal{}, false
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		w := ws.get(prefix)
		n := w.pages.note(page, now, ws.cfg.Window)
		if n < ws.cfg.PageWalk || !due(w.pages.reported, now, ws.cfg.Window) {
			return usage.Signal{}, false
		}
		w.pages.reported = now
		return usage.Signal{Kind: SignalPageWalk, KeyPrefix: prefix, ClientIP: ip, Count: int64(n), Window: ws.cfg.Window, At: now,
			Detail: fmt.Sprintf("walked %s page after page, pages %d to %d, within %v", endpoint, w.pages.first, w.pages.last, now.Sub(w.pages.start))}, true
	case ws.cfg.DetailEndpoint:
		slug := c.Path[strings.LastIndexByte(c.Path, '/')+1:]
		if slug == "" || len(slug) > maxWalkSlug {
			return usage.Signal{}, false
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		w := ws.get(prefix)
		n := w.slugs.note(slug, now, ws.cfg.Window)
		if n < ws.cfg.SlugWalk || !due(w.slugs.reported, now, ws.cfg.Window) {
			return usage.Signal{}, false
		}
		w.slugs.reported = now
		return usage.Signal{Kind: SignalSlugWalk, KeyPrefix: prefix, ClientIP: ip, Count: int64(n), Window: ws.cfg.Window, At: now,
			Detail: apikey.RedactSecrets(fmt.Sprintf("fetched %d details (%s) in slug order, %q to %q, within %v", n, endpoint, w.slugs.first, w.slugs.last, now.Sub(w.slugs.start)))}, true
	case ws.cfg.FeedEndpoint:
		// A page is counted at the size it was charged for: Cost requests
		// of FeedRecordsPerCost records.
		records := max(c.Cost, 1) * FeedRecordsPerCost
		ws.mu.Lock()
		defer ws.mu.Unlock()
		w := ws.get(prefix)
		n := w.feed.note(records, now, ws.cfg.Window)
		if n < ws.cfg.FeedWalk || !due(w.feed.reported, now, ws.cfg.Window) {
			return usage.Signal{}, false
		}
		w.feed.reported = now
		return usage.Signal{Kind: SignalFeedWalk, KeyPrefix: prefix, ClientIP: ip, Count: n, Window: ws.cfg.Window, At: now,
			Detail: fmt.Sprintf("asked the change feed (%s) for %d records in %d pages within %v", endpoint, n, w.feed.pages, now.Sub(w.feed.start))}, true
	}
	return usage.Signal{}, false
}

// FeedRecordsPerCost is how many change feed records one request of a
// page's cost stands for (the API charges a page ⌈limit/100⌉).
const FeedRecordsPerCost = 100

// due reports whether a signal last raised at reported may be raised again.
func due(reported, now time.Time, window time.Duration) bool {
	return reported.IsZero() || now.Sub(reported) >= window
}

// get returns the walks of prefix, now the most recent, making room when
// the list is full; under mu.
func (ws *walkers) get(prefix string) *walker {
	w := ws.byKey[prefix]
	switch {
	case w != nil:
		w.unlink()
	case len(ws.byKey) >= ws.cfg.MaxWalkers:
		w = ws.list.prev // the least recent goes; its memory serves again
		w.unlink()
		delete(ws.byKey, w.prefix)
		*w = walker{prefix: prefix}
		ws.byKey[prefix] = w
	default:
		w = &walker{prefix: prefix}
		ws.byKey[prefix] = w
	}
	w.prev, w.next = &ws.list, ws.list.next
	w.next.prev = w
	ws.list.next = w
	return w
}

func (w *walker) unlink() {
	w.prev.next, w.next.prev = w.next, w.prev
	w.prev, w.next = nil, nil
}

// size is how many keys' walks are followed.
func (ws *walkers) size() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.byKey)
}

// pageParam returns the page parameter of a raw query (1 when absent), and
// false when it is not a page the API would answer. The query is scanned
// without parsing it unless it has escapes.
func pageParam(raw string) (int, bool) {
	var v string
	found := false
	if strings.IndexByte(raw, '%') >= 0 || strings.IndexByte(raw, '+') >= 0 {
		q, _ := url.ParseQuery(raw)
		vs, ok := q["page"]
		if ok {
			v, found = vs[0], true
		}
	} else {
		for raw != "" && !found {
			var pair string
			pair, raw, _ = strings.Cut(raw, "&")
			v, found = strings.CutPrefix(pair, "page=")
		}
	}
	if !found {
		return 1, true
	}
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
		n = n*10 + int(v[i]-'0')
	}
	if n < 1 || n > maxWalkPage {
		return 0, false
	}
	return n, true
}
