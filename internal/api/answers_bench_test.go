package api

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// BenchmarkAnswerCache times the cache alone: hit, a kept answer looked up
// and its body taken (serially and from every core at once), and miss, an
// answer made (its making not timed) and offered to a full cache.
func BenchmarkAnswerCache(b *testing.B) {
	body := make([]byte, 3000) // about a similar or dupes answer
	urls := view.NewBuilder("https://x", nil, nil)
	b.Run("hit", func(b *testing.B) {
		g, keys := benchCacheFull(b, body)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			fz, _, _ := g.lookup(keys[i%len(keys)])
			fz.answer(urls, nil)
			i++
		}
	})
	b.Run("hit-parallel", func(b *testing.B) {
		g, keys := benchCacheFull(b, body)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				fz, _, _ := g.lookup(keys[i%len(keys)])
				fz.answer(urls, nil)
				i++
			}
		})
	})
	b.Run("miss-admit", func(b *testing.B) {
		g, _ := benchCacheFull(b, body)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := "new/" + strconv.Itoa(i)
			_, p, _ := g.lookup(k)
			benchFinish(g, k, p, newFrozen(body, nil, answerCounts{}, urls), 300*time.Microsecond)
			i++
		}
	})
}

// benchCacheFull is a 4 MB cache filled with answers of body, and the
// keys it kept.
func benchCacheFull(b *testing.B, body []byte) (*answerGen, []string) {
	urls := view.NewBuilder("https://x", nil, nil)
	c := newAnswerCache(4, 0)
	g := c.generation(&index.Index{})
	var keys []string
	for i := range 2000 {
		k := "similar\x00perfume-" + strconv.Itoa(i) + "\x0010\x00"
		_, p, _ := g.lookup(k)
		benchFinish(g, k, p, newFrozen(body, nil, answerCounts{}, urls), 300*time.Microsecond)
		keys = append(keys, k)
	}
	return g, slices.DeleteFunc(keys, func(k string) bool { return g.shards[shardOf(k)].m[k] == nil })
}

func benchFinish(g *answerGen, k string, p *pendingAnswer, fz *frozen, cost time.Duration) {
	g.finish(k, p, fz, nil, cost)
}

// BenchmarkKeptAnswer times writing a kept answer's body out of the cache:
// whole (as kept without the item memo) and with its items spliced in from
// the memo, for a detail (with six similar perfumes) and a page of 50
// perfumes, the image host's stamp unmoved.
func BenchmarkKeptAnswer(b *testing.B) {
	fx := newSpliceFixture(b, 2, 50, 7, 6)
	ix, u, plain, memo, page, e, similar := fx.ix, fx.u, fx.plain, fx.memo, fx.page, fx.e, fx.similar
	for _, a := range []struct {
		name   string
		encode func(en *encoder, b []byte) []byte
	}{
		{"detail", func(en *encoder, b []byte) []byte { return en.appendDetail(b, e, similar) }},
		{"page-50", func(en *encoder, b []byte) []byte { return en.appendPage(b, page) }},
	} {
		for _, rd := range []*render{plain, memo} {
			en := rd.encoderFor(ix)
			fz := freezeEncoded(append(a.encode(&en, nil), '\n'), &en, u)
			name := a.name + "/whole"
			if rd == memo {
				name = a.name + "/spliced"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				buf := make([]byte, 0, 64<<10)
				for b.Loop() {
					fz.answer(u, buf[:0])
				}
			})
		}
	}
}
