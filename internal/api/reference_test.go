package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/evaluation"
	"github.com/fragrance-data/fragrance/internal/racedetect"
	"github.com/fragrance-data/fragrance/internal/view"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// The reference encoding of every answer is encoding/json of its shape in
// package view, which the website and the tools for language models read
// too; the hand-written encoders of encode.go must give the same bytes.

// refEncode is what writeJSON wrote before: encoding/json, no HTML
// escaping, a trailing newline.
func refEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fastEncode is what Server.answer writes: the encoding with its holes
// filled, kept (the kept items' parts spliced in) and written from the
// cache. What is written without the cache must be the same bytes: when it
// is not, fastEncode returns both, so that the comparison fails.
func fastEncode(rd *render, f func(en *encoder, b []byte) []byte) []byte {
	ix, _ := refIndex()
	en := rd.encoderFor(ix)
	encoded := append(f(&en, nil), '\n')
	kept, _ := freezeEncoded(encoded, &en, rd.urls).answer(rd.urls, nil)
	uncached, _ := appendFilled(nil, encoded, en.holes, rd.urls, nil)
	if !bytes.Equal(kept, uncached) {
		return append(append(kept, "\nwithout the cache:\n"...), uncached...)
	}
	return kept
}

// sameBytes fails when the two encodings differ, showing where.
func sameBytes(t *testing.T, what string, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(i-80, 0)
	t.Fatalf("%s: encodings differ at byte %d\nwant …%s\n got …%s", what, i,
		want[from:min(i+80, len(want))], got[from:min(i+80, len(got))])
}

// fakeImages reports every third transparent image as available, so both
// values of imageTransparentAvailable are encoded.
type fakeImages struct{}

func (fakeImages) ImageURL(id int64) string {
	return "https://img.example/p/" + strconv.FormatInt(id, 10) + ".jpg"
}
func (fakeImages) TransparentURL(id int64) string {
	return "https://img.example/n/" + strconv.FormatInt(id, 10) + ".webp"
}
func (fakeImages) TransparentAvailable(id int64) bool { return id%3 == 0 }

// refIndex is the bundled catalogue, built once for the package's tests.
// The external tests (main_test.go) replace it with servetest's index of
// the catalogue as served, so that the test binary builds one index of it,
// not two.
var refIndex = sync.OnceValues(func() (*index.Index, error) {
	ps, ref, err := evaluation.BundledPerfumes()
	if err != nil {
		return nil, err
	}
	return index.Build(ps, index.Options{AccordColor: ref.Color}), nil
})

// testRender is an encoder set-up to compare with the reference encoding
// through the same URLs.
type testRender struct {
	name string
	fast *render
	ref  view.Builder
}

func testRenders(t *testing.T) []testRender {
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	var out []testRender
	for _, tc := range []struct {
		name   string
		base   string
		images view.Images
	}{{"default-images", "http://127.0.0.1:8080/a\"b\u2028\x01é", nil}, {"image-host", "https://fragrance.example", fakeImages{}}} {
		u := view.NewBuilder(tc.base, tc.images, ref.Color)
		memo := newRender(u)
		memo.itemMemo = newItemMemo(64 << 20) // room for every item
		out = append(out, testRender{tc.name, newRender(u), u}, testRender{tc.name + "-item-memo", memo, u})
	}
	return out
}

// answerCase is one answer encoded both ways: shape is its shape in
// package view through the URLs u (the reference encodes it with
// encoding/json), fast the hand-written encoding.
type answerCase struct {
	what  string
	shape func(u view.Builder) any
	fast  func(en *encoder, b []byte) []byte
}

// TestEncodersMatchReference encodes every perfume of the bundled catalogue
// as a list item, a fifth of them as details (some with similar perfumes),
// and samples of every other answer, both ways, and wants the same bytes.
// With the item memo, the answers are encoded twice: as the memo fills,
// and from it. The answers are asked of the catalogue once, and each
// reference encoding made once for the URLs it is compared through.
//
// Under -race, where both encoders are some ten times slower and nothing
// here runs concurrently, the list items are every tenth page of 100 and
// the details a fiftieth; the plain pass encodes the whole catalogue.
func TestEncodersMatchReference(t *testing.T) {
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	cases := listAnswerCases(ix)
	cases = append(cases, detailAnswerCases(t, ix)...)
	cases = append(cases, scoredAnswerCases(t, ix)...)
	cases = append(cases, countAnswerCases(ix)...)
	renders := testRenders(t)
	refs := map[view.Builder][][]byte{}
	for _, r := range renders {
		if _, ok := refs[r.ref]; ok {
			continue
		}
		want := make([][]byte, len(cases))
		for i, c := range cases {
			want[i] = refEncode(t, c.shape(r.ref))
		}
		refs[r.ref] = want
	}
	for _, r := range renders {
		passes := 1
		if r.fast.itemMemo != nil {
			passes = 2
		}
		for pass := range passes {
			name := r.name
			if pass > 0 {
				name += "-kept"
			}
			t.Run(name, func(t *testing.T) {
				for i, c := range cases {
					sameBytes(t, c.what, refs[r.ref][i], fastEncode(r.fast, c.fast))
				}
			})
		}
	}
}

// listAnswerCases: the catalogue as list pages (the whole of it in one
// page, or under -race every tenth page of 100), and a search that finds
// nothing.
func listAnswerCases(ix *index.Index) []answerCase {
	var pages []index.Page
	if racedetect.Enabled {
		for p := 1; (p-1)*100 < ix.Len(); p += 10 {
			pages = append(pages, ix.Perfumes(index.ListQuery{Page: p, Limit: 100}))
		}
	} else {
		pages = append(pages, ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()}))
	}
	pages = append(pages, ix.Perfumes(index.ListQuery{Q: "xyzzy", Page: 1, Limit: 20}))
	var cases []answerCase
	for _, pg := range pages {
		cases = append(cases, answerCase{fmt.Sprintf("page %d of %d", pg.Page, pg.Limit),
			func(u view.Builder) any { return u.Page(pg) },
			func(en *encoder, b []byte) []byte { return en.appendPage(b, pg) }})
	}
	return cases
}

// detailAnswerCases: a fifth of the perfumes (under -race a fiftieth) as
// details, some with similar perfumes.
func detailAnswerCases(t *testing.T, ix *index.Index) []answerCase {
	step := 5
	if racedetect.Enabled {
		step = 50
	}
	all := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()})
	if len(all.Entries) != ix.Len() {
		t.Fatalf("the catalogue lists %d of its %d perfumes", len(all.Entries), ix.Len())
	}
	var cases []answerCase
	for i, e := range all.Entries {
		if i%step != 0 {
			continue
		}
		var similar []index.Scored
		if i%97 == 0 { // similarity is slow; a sample shows the embedded items
			_, similar, _ = ix.Similar(e.Slug(), 5)
		}
		cases = append(cases, answerCase{"detail " + e.Slug(),
			func(u view.Builder) any { return u.Detail(e, similar) },
			func(en *encoder, b []byte) []byte { return en.appendDetail(b, e, similar) }})
	}
	return cases
}

func scoredAnswerCases(t *testing.T, ix *index.Index) []answerCase {
	var cases []answerCase
	for _, slug := range []string{"dior-sauvage", "creed-aventus", "dolce-and-gabbana-light-blue", "chanel-coco-mademoiselle"} {
		e, items, err := ix.Similar(slug, 20)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, answerCase{"similar " + slug,
			func(u view.Builder) any { return u.SimilarList(e, items, 20) },
			func(en *encoder, b []byte) []byte { return en.appendSimilarAnswer(b, e, items, 20) }})
		e, dupes, err := ix.Dupes(slug, 50)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, answerCase{"dupes " + slug,
			func(u view.Builder) any { return u.DupeList(e, dupes, 50) },
			func(en *encoder, b []byte) []byte { return en.appendDupesAnswer(b, e, dupes, 50) }})
	}
	for _, m := range []struct {
		text string
		q    index.MatchQuery
	}{
		{"", index.MatchQuery{Accords: []index.AccordWant{{Name: "woody", Strength: 40}, {Name: "vanilla", Strength: 100}, {Name: "Woody", Strength: 55.5}},
			Notes: []string{"tonka bean"}, Gender: catalog.Masculine, Season: "winter", Page: 1, Limit: 50}},
		{"", index.MatchQuery{Notes: []string{"rose", "oud"}, Time: "night", Page: 2, Limit: 7}},
		{"", index.MatchQuery{Season: "summer", Page: 1, Limit: 20}},
		{"", index.MatchQuery{Accords: []index.AccordWant{{Name: "citrus", Strength: 100}}, Page: 1000, Limit: 20}},
		{"", index.MatchQuery{Notes: []string{"rose"}, Exclude: index.Want{Notes: []string{"oud"}, Accords: []string{"Sweet"}}, Sort: index.SortPopular, Page: 1, Limit: 20}},
		{"vanilla tobacco for winter, not sweet, by tom ford, zzz", index.MatchQuery{Page: 1, Limit: 20}},
		{"fresh citrus for the office", index.MatchQuery{Gender: catalog.Masculine, Notes: []string{"bergamot"}, Page: 1, Limit: 10}},
		{"zzz qqq", index.MatchQuery{Page: 1, Limit: 10}},
	} {
		res, echo, err := view.DescribedMatch(ix, m.text, m.q)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, answerCase{fmt.Sprintf("match %q %+v", m.text, m.q),
			func(u view.Builder) any { return u.MatchList(echo, res) },
			func(en *encoder, b []byte) []byte { return en.appendMatchAnswer(b, echo, res) }})
	}
	for _, q := range []index.RecommendQuery{
		{Liked: []string{"creed-aventus", "dior-sauvage"}, Page: 1, Limit: 10},
		{Liked: []string{"tom-ford-tobacco-vanille"}, Disliked: []string{"creed-aventus"}, Avoid: []string{"oud"}, Gender: catalog.Masculine, Page: 2, Limit: 7},
		{Liked: []string{"dior-sauvage"}, Page: 100000, Limit: 50},
	} {
		res, err := ix.Recommend(q)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, answerCase{fmt.Sprintf("recommend %+v", q),
			func(u view.Builder) any { return u.RecommendList(res) },
			func(en *encoder, b []byte) []byte { return en.appendRecommendAnswer(b, res) }})
	}
	c, pg, err := ix.Perfumer("dominique-ropion", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	return append(cases, answerCase{"perfumer",
		func(u view.Builder) any { return u.Perfumer(c, pg) },
		func(en *encoder, b []byte) []byte { return en.appendPerfumer(b, c, pg) }})
}

func countAnswerCases(ix *index.Index) []answerCase {
	brands := ix.Brands("")
	notes, notesTotal := ix.Notes(0)
	accords, accordsTotal := ix.Accords("", 100)
	limit := 100
	ps := ix.Perfumers()
	return []answerCase{
		{"brands", func(view.Builder) any { return view.CountList{Data: view.Counts(brands), Total: len(brands)} },
			func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, brands, len(brands), 0) }},
		{"notes", func(view.Builder) any { return view.LimitedCountList{Data: view.Counts(notes), Total: notesTotal} },
			func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, notes, notesTotal, 0) }},
		{"accords", func(view.Builder) any {
			return view.LimitedCountList{Data: view.Counts(accords), Total: accordsTotal, Limit: &limit}
		}, func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, accords, accordsTotal, limit) }},
		{"perfumers", func(view.Builder) any { return view.CountList{Data: view.Counts(ps), Total: len(ps)} },
			func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, ps, len(ps), 0) }},
	}
}
