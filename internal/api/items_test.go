package api

import (
	"bytes"
	"math"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
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
	rd := newRender(view.NewBuilder("https://fragrance.example", fakeImages{}, ref.Color))
	const limit = 50 << 10
	rd.itemMemo = newItemMemo(limit)
	g := rd.itemMemo.of(ix)
	if g == nil || rd.itemMemo.of(ix) != g {
		t.Fatal("no memo, or a second one for the same catalogue")
	}
	page := ix.Perfumes(index.ListQuery{Page: 1, Limit: 200})
	// encode writes the page as an answer without the cache does, and as
	// the cache keeps it and writes it again.
	encode := func(items *itemGen) (written, kept []byte) {
		en := rd.encoderFor(ix)
		en.items = items
		b := append(en.appendPage(nil, page), '\n')
		written, _ = appendFilled(nil, b, en.holes, rd.urls, nil)
		kept, _ = freezeEncoded(b, &en, rd.urls).answer(rd.urls, nil)
		return written, kept
	}
	want, _ := encode(nil)
	for pass := range 2 {
		written, kept := encode(g)
		if !bytes.Equal(written, want) || !bytes.Equal(kept, want) {
			t.Fatalf("pass %d: the page differs with the memo", pass)
		}
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

// TestItemMemoSize checks the memo's automatic size: a sixteenth of the
// memory limit, at most an eighth of what the catalogue leaves, none when
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
		{350 * mb, 37_000, 350 * mb / 16},
		{350 * mb, 200_000, left(350*mb, 200_000) / 8},
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

// TestSplicedAnswers: a kept answer whose perfumes are the memo's items
// (spliced in, not copied) is written as the same bytes as the answer made
// afresh without the memo, as the image host's versions change to values
// of other lengths, both in the items' members and around them (a similar
// list's own image holes, and a hole right where an item begins); and it
// takes less memory than the whole answer (a page, a tenth at most).
func TestSplicedAnswers(t *testing.T) {
	fx := newSpliceFixture(t, 1, 60, 3, 10)
	ix, u, plain, memo, page, e, similar := fx.ix, fx.u, fx.plain, fx.memo, fx.page, fx.e, fx.similar
	answers := map[string]func(en *encoder, b []byte) []byte{
		"page":    func(en *encoder, b []byte) []byte { return en.appendPage(b, page) },
		"similar": func(en *encoder, b []byte) []byte { return en.appendSimilarAnswer(b, e, similar, 10) },
		"dupes":   func(en *encoder, b []byte) []byte { return en.appendDupesAnswer(b, e, similar, 10) },
		"detail":  func(en *encoder, b []byte) []byte { return en.appendDetail(b, e, similar[:6]) },
		"hole-then-item": func(en *encoder, b []byte) []byte {
			b = en.appendImages(append(b, '['), e.ID, true)
			b = en.appendListFields(b, page.Entries[0])
			return append(en.appendIdentOf(b, e, en.item(e)), ']')
		},
	}
	fresh := func(f func(en *encoder, b []byte) []byte) []byte {
		en := plain.encoderFor(ix)
		b, _ := appendFilled(nil, append(f(&en, nil), '\n'), en.holes, u, nil)
		return b
	}
	for name, f := range answers {
		t.Run(name, func(t *testing.T) {
			*fx.v = 1
			en := memo.encoderFor(ix)
			body := append(f(&en, nil), '\n')
			if len(en.splices) == 0 {
				t.Fatal("no item spliced")
			}
			fz := freezeEncoded(body, &en, u)
			// A page is all items: a tenth of its bytes at most. The other
			// answers hold their results' scores and shared accords.
			if whole := newFrozen(body, en.holes, answerCounts{}, u).size(); fz.size() >= whole || name == "page" && fz.size()*10 > whole {
				t.Errorf("kept in %d bytes, the whole answer in %d", fz.size(), whole)
			}
			for _, v := range []int{1, 2, 1000, 3, 3, 123456} {
				*fx.v = v
				want := fresh(f)
				if got, _ := fz.answer(u, nil); !bytes.Equal(got, want) {
					t.Fatalf("version %d:\n got %s\nwant %s", v, got, want)
				}
			}
		})
	}
}

// spliceFixture is the bundled catalogue with two renders of the same
// URLs, whose image versions are v: plain, without the item memo, and
// memo, with room for every item; a page of it, one of the page's
// perfumes (e) and e's similar perfumes.
type spliceFixture struct {
	ix          *index.Index
	v           *int
	u           view.Builder
	plain, memo *render
	page        index.Page
	e           *index.Entry
	similar     []index.Scored
}

// newSpliceFixture makes the fixture of page pageNo of limit perfumes, e
// its perfume at, with n similar perfumes.
func newSpliceFixture(tb testing.TB, pageNo, limit, at, n int) *spliceFixture {
	ix, err := refIndex()
	if err != nil {
		tb.Fatal(err)
	}
	fx := &spliceFixture{ix: ix, v: new(int)}
	*fx.v = 1
	fx.u = view.NewBuilder("https://x", versionedImages{fx.v}, nil)
	fx.plain, fx.memo = newRender(fx.u), newRender(fx.u)
	fx.memo.itemMemo = newItemMemo(64 << 20)
	fx.page = ix.Perfumes(index.ListQuery{Page: pageNo, Limit: limit})
	fx.e = fx.page.Entries[at]
	if _, fx.similar, err = ix.Similar(fx.e.Slug(), n); err != nil || len(fx.similar) < min(n, 6) {
		tb.Fatal(err, len(fx.similar))
	}
	return fx
}

// TestSplicedAnswerConcurrent: requests writing a kept answer with
// spliced items while the image host's versions change (under -race in
// CI) each get a whole answer, every URL of some version, and once the
// changes stop, the last version everywhere.
func TestSplicedAnswerConcurrent(t *testing.T) {
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	var version atomic.Int64
	version.Store(1)
	u := view.NewBuilder("https://x", atomicVersionImages{&version}, nil)
	plain, memo := newRender(u), newRender(u)
	memo.itemMemo = newItemMemo(16 << 20)
	page := ix.Perfumes(index.ListQuery{Page: 2, Limit: 30})
	encode := func(rd *render) (*encoder, []byte) {
		en := rd.encoderFor(ix)
		return &en, append(en.appendPage(nil, page), '\n')
	}
	en, body := encode(memo)
	fz := freezeEncoded(body, en, u)
	want := func() string {
		en, body := encode(plain)
		b, _ := appendFilled(nil, body, en.holes, u, nil)
		return string(b)
	}
	anyVersion := regexp.MustCompile(`\?v=[0-9]+"`)
	version.Store(0)
	want0 := want()
	version.Store(1)
	readWhileVersionsChange(&version, func() {
		var buf []byte
		for range 100 {
			body, _ := fz.answer(u, buf[:0])
			if anyVersion.ReplaceAllString(string(body), `?v=0"`) != want0 {
				t.Errorf("got a broken answer: %s", body)
				return
			}
			buf = body
		}
	})
	if body, _ := fz.answer(u, nil); string(body) != want() {
		t.Errorf("after the last change: got %s", body)
	}
}

// TestAccordTable: a perfume's accords are encoded from the catalogue's
// table by spelling id, the same bytes as by name; an encoder made for one
// catalogue that is given an entry of another (whose spelling ids mean
// other accords) still writes that entry's own accords.
func TestAccordTable(t *testing.T) {
	perfume := func(id int64, slug string, accords ...string) catalog.Perfume {
		p := catalog.Perfume{ID: id, Slug: slug, Name: slug, Brand: "Brand", BrandSlug: "brand", Gender: catalog.Unisex}
		for i, a := range accords {
			p.Accords = append(p.Accords, catalog.AccordStrength{Name: a, Strength: float64(100 - 10*i)})
		}
		return p
	}
	one := index.Build([]catalog.Perfume{perfume(1, "a", "woody", "citrus")}, index.Options{})
	two := index.Build([]catalog.Perfume{perfume(1, "b", "citrus", "vanilla", "woody")}, index.Options{})
	rd := newRender(view.NewBuilder("https://fragrance.example", fakeImages{}, func(name string) string { return "#" + name }))
	byName := func(e *index.Entry) string {
		en := encoder{render: rd}
		return string(en.appendAccords(nil, e.Accords()))
	}
	for _, tc := range []struct {
		name string
		en   *index.Index // the encoder's catalogue
		e    *index.Entry
		want string
	}{
		{"own catalogue", one, one.Perfumes(index.ListQuery{Page: 1, Limit: 1}).Entries[0],
			`[{"name":"woody","strength":100,"color":"#woody"},{"name":"citrus","strength":90,"color":"#citrus"}]`},
		{"own catalogue", two, two.Perfumes(index.ListQuery{Page: 1, Limit: 1}).Entries[0],
			`[{"name":"citrus","strength":100,"color":"#citrus"},{"name":"vanilla","strength":90,"color":"#vanilla"},{"name":"woody","strength":80,"color":"#woody"}]`},
		{"another catalogue", one, two.Perfumes(index.ListQuery{Page: 1, Limit: 1}).Entries[0],
			`[{"name":"citrus","strength":100,"color":"#citrus"},{"name":"vanilla","strength":90,"color":"#vanilla"},{"name":"woody","strength":80,"color":"#woody"}]`},
	} {
		en := rd.encoderFor(tc.en)
		if len(en.accordParts) == 0 {
			t.Fatalf("%s: no accord table", tc.name)
		}
		if got := string(en.appendAccords(nil, tc.e.Accords())); got != tc.want || byName(tc.e) != tc.want {
			t.Errorf("%s: accords %s (by name %s), want %s", tc.name, got, byName(tc.e), tc.want)
		}
	}
}
