package api

import (
	"bytes"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// The item memo keeps an item the first time it is encoded and serves the
// same bytes and holes after; it keeps no more than its limit, keeps
// nothing for an entry of another catalogue, and starts afresh with a new
// catalogue.
func TestItemMemo(t *testing.T) {
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	rd := newRender(view.NewURLs("https://fragrance.example", fakeImages{}, ref.Color))
	const limit = 50 << 10
	rd.items = newItemMemo(limit)
	g := rd.items.of(ix)
	if g == nil || rd.items.of(ix) != g {
		t.Fatal("no memo, or a second one for the same catalogue")
	}
	page := ix.Perfumes(index.ListQuery{Page: 1, Limit: 200})
	encode := func(items *itemGen) ([]byte, []hole) {
		en := &encoder{render: rd, items: items}
		return en.appendPage(nil, page), en.holes
	}
	want, wantHoles := encode(nil)
	first, firstHoles := encode(g)
	second, secondHoles := encode(g)
	for i, got := range [][]byte{first, second} {
		if !bytes.Equal(got, want) {
			t.Fatalf("pass %d: the page differs with the memo", i)
		}
	}
	if !equalHoles(firstHoles, wantHoles) || !equalHoles(secondHoles, wantHoles) {
		t.Fatal("the holes differ with the memo")
	}
	kept := 0
	for i := range g.slots {
		if g.slots[i].Load() != nil {
			kept++
		}
	}
	// The memo may pass its limit by the one item that found it with room.
	if b := g.bytes.Load(); kept == 0 || kept == len(page.Entries) || b > limit+4096 {
		t.Fatalf("kept %d of %d items in %d bytes, want some, not all, within %d and an item", kept, len(page.Entries), b, limit)
	}

	other := index.Build(nil, index.Options{})
	en := &encoder{render: rd, items: g}
	if it := en.item(page.Entries[0]); it == nil {
		t.Fatal("the first item is not kept")
	}
	otherEntry := *page.Entries[0]
	if it := en.item(&otherEntry); it != nil {
		t.Fatal("an entry that is not the catalogue's was kept")
	}
	if ng := rd.items.of(other); ng == nil || ng == g || ng.bytes.Load() != 0 {
		t.Fatal("a new catalogue did not start a new, empty memo")
	}
}

func equalHoles(a, b []hole) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
