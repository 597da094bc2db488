package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// BenchmarkColdAnswers: the API without its answer cache, every call a
// different perfume (every 7th of the bundled catalogue), the neighbour
// lists filled, as a long tail of traffic gets it once a server has ranked
// them: the making of an answer (view, shared accords and notes, encoding)
// through the handler, without the access layer.
func BenchmarkColdAnswers(b *testing.B) {
	holder := servetest.Catalogue(b)
	ix := holder.Load()
	cp := index.NewHolder(ix)
	for c := range ix.NeighbourChunks() {
		if !ix.NeighbourChunkReady(c) {
			if _, err := ix.ComputeNeighbours(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	h := newServer(b, func(c *newConfig) { c.Catalogue, c.AnswerCacheMB = cp, -1 })
	var slugs []string
	var entries []*index.Entry
	for i, id := range ix.IDs() {
		if i%7 == 0 {
			e, _ := ix.ByID(id)
			slugs = append(slugs, e.Slug())
			entries = append(entries, e)
		}
	}
	// each asks the paths in turn, round and round.
	each := func(b *testing.B, paths []string) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			rec := do(b, h, "GET", paths[i%len(paths)])
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
			i++
		}
	}
	b.Run("match", func(b *testing.B) {
		// Every pair of the 20 commonest accords, as the load benchmark's
		// cold mix asks them.
		accs, _ := ix.Accords("", 20)
		var qs []string
		for i := 0; i < 20; i++ {
			for j := i + 1; j < 20; j++ {
				qs = append(qs, "/api/perfumes/match?accords="+url.QueryEscape(accs[i].Name+","+accs[j].Name))
			}
		}
		each(b, qs)
	})
	b.Run("search", func(b *testing.B) {
		// As the load benchmark's cold mix: "brand name", the name, the
		// name with a letter dropped, the beginning of the name.
		var qs []string
		for i, e := range entries {
			name := []rune(e.Name())
			switch i % 4 {
			case 0:
				name = []rune(e.Brand() + " " + e.Name())
			case 2:
				if len(name) > 4 {
					name = append(name[:len(name)/2], name[len(name)/2+1:]...)
				}
			case 3:
				name = name[:min(len(name), max(3, len(name)*2/3))]
			}
			qs = append(qs, "/api/perfumes?q="+url.QueryEscape(string(name)))
		}
		each(b, qs)
	})
	b.Run("list", func(b *testing.B) {
		// As the load benchmark's cold mix: pages anywhere in the
		// catalogue, 10 to 100 perfumes each, no page twice.
		var paths []string
		seen := map[[2]int]bool{}
		for i := 0; len(paths) < 1000; i++ {
			limit := 10 + i*37%91
			page := 1 + i*7919%((ix.Len()+limit-1)/limit)
			if !seen[[2]int{page, limit}] {
				seen[[2]int{page, limit}] = true
				paths = append(paths, "/api/perfumes?page="+strconv.Itoa(page)+"&limit="+strconv.Itoa(limit))
			}
		}
		each(b, paths)
	})
	for _, route := range []struct{ name, suffix string }{{"detail", ""}, {"similar", "/similar"}, {"dupes", "/dupes"}} {
		b.Run(route.name, func(b *testing.B) {
			paths := make([]string, len(slugs))
			for i, slug := range slugs {
				paths[i] = "/api/perfumes/" + slug + route.suffix
			}
			each(b, paths)
		})
	}
}
