package api

import (
	"bytes"
	"math"
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
	rd.itemMemo = newItemMemo(limit)
	g := rd.itemMemo.of(ix)
	if g == nil || rd.itemMemo.of(ix) != g {
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
	if ng := rd.itemMemo.of(other); ng == nil || ng == g || ng.bytes.Load() != 0 {
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

// TestItemMemoSize checks the memo's automatic size: a thirty-second of the
// memory limit, at most a sixteenth of what the catalogue leaves, none when
// it leaves nothing; and that the memo and the answer cache together take
// no more of that room than the answer cache alone would.
func TestItemMemoSize(t *testing.T) {
	const mb = 1 << 20
	left := func(limit int64, perfumes int) int64 { return limit - int64(perfumes)*catalogueBytesPerPerfume }
	for _, tt := range []struct {
		limit    int64
		perfumes int
		want     int64
	}{
		{0, 37_000, defaultItemMemo},
		{math.MaxInt64, 200_000, defaultItemMemo},
		{350 * mb, 37_000, 350 * mb / 32},
		{350 * mb, 200_000, left(350*mb, 200_000) / 16},
		{350 * mb, 500_000, 0},
		{8 << 30, 37_000, maxItemMemo},
	} {
		got := itemMemoBytes(tt.limit, tt.perfumes)
		if got != tt.want {
			t.Errorf("itemMemoBytes(%d, %d) = %d, want %d", tt.limit, tt.perfumes, got, tt.want)
		}
		if tt.limit != 0 && tt.limit != math.MaxInt64 {
			cache := int64(answerCacheBytes(0, tt.limit, tt.perfumes))
			if quarter := left(tt.limit, tt.perfumes) / 4; cache > minAutoCache && cache+got > max(quarter, tt.limit/10) {
				t.Errorf("limit %d, %d perfumes: cache %d + memo %d beyond %d", tt.limit, tt.perfumes, cache, got, quarter)
			}
		}
	}
	// A catalogue that leaves no room gets no memo; one that does, a memo.
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	full := int64(ix.Len()) * catalogueBytesPerPerfume
	if g := newAutoItemMemo(full).of(ix); g != nil {
		t.Errorf("a memo of %d bytes for a catalogue that fills the memory limit", g.limit)
	}
	if g := newAutoItemMemo(full + 64*mb).of(ix); g == nil {
		t.Error("no memo for a catalogue that leaves 64 MiB")
	} else if want := itemMemoBytes(full+64*mb, ix.Len()); g.limit != want || want <= 0 {
		t.Errorf("memo of %d bytes, want %d", g.limit, want)
	}
}
