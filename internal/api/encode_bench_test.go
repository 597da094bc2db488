package api

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// BenchmarkEncode compares the hand-written encoders with the
// encoding/json reference on a list page and a detail.
//
//	go test ./internal/api -run '^$' -bench Encode -benchmem
func BenchmarkEncode(b *testing.B) {
	ix, err := refIndex()
	if err != nil {
		b.Fatal(err)
	}
	pg := ix.Perfumes(index.ListQuery{Page: 1, Limit: 20})
	e, similar, err := ix.Similar("dior-sauvage", 5)
	if err != nil {
		b.Fatal(err)
	}
	u := view.NewBuilder("https://fragrance.example", nil, func(string) string { return "#CCCCCC" })
	fast := newRender(u)
	buf := make([]byte, 0, 64<<10)
	b.Run("list/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			en := encoder{render: fast}
			buf = en.appendPage(buf[:0], pg)
		}
	})
	// kept: the page's items already in the item memo, as for popular
	// perfumes listed again (the first iteration keeps them).
	memo := newItemMemo(16 << 20)
	b.Run("list/kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			en := encoder{render: fast, items: memo.of(ix)}
			buf = en.appendPage(buf[:0], pg)
		}
	})
	b.Run("list/reflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			refEncode(b, u.Page(pg))
		}
	})
	b.Run("detail/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			en := encoder{render: fast}
			buf = en.appendDetail(buf[:0], e, similar)
		}
	})
	b.Run("detail/kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			en := encoder{render: fast, items: memo.of(ix)}
			buf = en.appendDetail(buf[:0], e, similar)
		}
	})
	b.Run("detail/reflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			refEncode(b, u.Detail(e, similar))
		}
	})
}
