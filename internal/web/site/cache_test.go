package site

import (
	"html/template"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web"
)

// TestPageCacheGenerations: a page asked often stays while a long tail of
// pages passes through; a page not asked again leaves; the cache never
// holds more than its bytes; another catalogue starts it afresh.
func TestPageCacheGenerations(t *testing.T) {
	var c pageCache
	ix, now := new(index.Index), time.Now()
	big := web.Page{Title: "t", Data: template.HTML(strings.Repeat("x", 100<<10))}
	c.put(ix, "hot", false, now, big)
	c.put(ix, "once", false, now, big)
	for i := range 2000 {
		c.put(ix, "tail-"+strconv.Itoa(i), false, now, big)
		if i%50 == 0 {
			if _, kept, ok := c.get(ix, "hot", false, now); !ok || kept == nil {
				t.Fatalf("the page asked every 50 pages left the cache after %d others", i)
			}
		}
		held := 0
		for _, m := range []map[string]cachedPage{c.cur, c.old} {
			for _, p := range m {
				held += p.size
			}
		}
		if held > pageCacheBytes {
			t.Fatalf("the cache holds %d bytes, over %d", held, pageCacheBytes)
		}
	}
	if _, _, ok := c.get(ix, "once", false, now); ok {
		t.Error("a page never asked again is still kept after 2,000 others")
	}
	if _, _, ok := c.get(ix, "hot", true, now); ok {
		t.Error("a page kept without its transparent picture was served with it")
	}
	if _, _, ok := c.get(ix, "tail-1999", false, now.Add(pageTTL+time.Second)); ok {
		t.Error("a page older than pageTTL was served")
	}
	if _, _, ok := c.get(new(index.Index), "tail-1999", false, now); ok {
		t.Error("a page of another catalogue was served")
	}
	c.put(new(index.Index), "new", false, now, big)
	if len(c.cur)+len(c.old) != 1 {
		t.Errorf("another catalogue kept %d pages of the last", len(c.cur)+len(c.old)-1)
	}
}
