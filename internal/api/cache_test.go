package api

import (
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// TestAnswerCacheSingleFlight: while one request makes an answer, others
// for the same key wait for it; a failure is not kept.
func TestAnswerCacheSingleFlight(t *testing.T) {
	c := newAnswerCache(1)
	ix := &index.Index{}
	g := c.generation(ix)
	if g == nil || c.generation(ix) != g {
		t.Fatal("one generation per catalogue")
	}
	_, p, lead := g.lookup("k")
	if !lead {
		t.Fatal("the first request must make the answer")
	}
	fz, p2, lead2 := g.lookup("k")
	if fz != nil || lead2 || p2 != p {
		t.Fatal("a second request must wait for the first")
	}
	want := newFrozen([]byte("{}\n"), nil, answerCounts{})
	g.finish("k", p, want, nil, c.perShard)
	<-p2.done
	if p2.fz != want || p2.err != nil {
		t.Fatal("the waiting request did not get the answer")
	}
	if got, _, _ := g.lookup("k"); got != want {
		t.Fatal("the answer was not kept")
	}
	_, p, _ = g.lookup("bad")
	g.finish("bad", p, nil, errors.New("boom"), c.perShard)
	if _, _, lead := g.lookup("bad"); !lead {
		t.Fatal("a failed answer must not be kept")
	}
	if c.generation(&index.Index{}) == g {
		t.Fatal("a new catalogue must start a new generation")
	}
}

// TestAnswerCacheBound: a shard never holds more than its share.
func TestAnswerCacheBound(t *testing.T) {
	c := newAnswerCache(1) // 64 KiB per shard
	g := c.generation(&index.Index{})
	body := make([]byte, 10<<10)
	for i := range 1000 {
		k := strconv.Itoa(i)
		_, p, _ := g.lookup(k)
		g.finish(k, p, newFrozen(body, nil, answerCounts{}), nil, c.perShard)
	}
	for i := range g.shards {
		if sh := &g.shards[i]; sh.bytes > c.perShard || len(sh.m) == 0 {
			t.Fatalf("shard %d: %d bytes in %d answers, limit %d", i, sh.bytes, len(sh.m), c.perShard)
		}
	}
}

// TestFrozenRefill: holes are filled live, and a filled answer is reused
// only for refillEvery.
func TestFrozenRefill(t *testing.T) {
	avail := map[int64]bool{}
	u := view.NewURLs("https://x", imagesFunc(func(id int64) bool { return avail[id] }), nil)
	fz := newFrozen([]byte(`{"a":,"b":}`+"\n"), []hole{{pos: 5, id: 1}, {pos: 10, id: 2}}, answerCounts{})
	t0 := time.Unix(1000, 0)
	if body, length := fz.answer(u, t0); string(body) != `{"a":false,"b":false}`+"\n" || length[0] != "22" {
		t.Fatalf("got %s (%v)", body, length)
	}
	avail[2] = true
	if body, _ := fz.answer(u, t0.Add(refillEvery/2)); string(body) != `{"a":false,"b":false}`+"\n" {
		t.Fatalf("refilled too early: %s", body)
	}
	if body, _ := fz.answer(u, t0.Add(refillEvery)); string(body) != `{"a":false,"b":true}`+"\n" {
		t.Fatalf("not refilled: %s", body)
	}
}

// imagesFunc is an Images whose availability is a function.
type imagesFunc func(id int64) bool

func (f imagesFunc) ImageURL(id int64) string           { return "i" }
func (f imagesFunc) TransparentURL(id int64) string     { return "t" }
func (f imagesFunc) TransparentAvailable(id int64) bool { return f(id) }

// TestCacheKeyEveryField: the key of a query changes with each of its
// fields, slices included, and no two queries of this set share a key.
func TestCacheKeyEveryField(t *testing.T) {
	base := index.MatchQuery{Accords: []index.AccordWant{{Name: "woody", Strength: 40}}, Notes: []string{"rose"},
		Gender: "masculine", Season: "winter", Time: "day", Page: 1, Limit: 20}
	variants := []index.MatchQuery{base}
	v := reflect.ValueOf(base)
	for i := range v.NumField() {
		q := base
		f := reflect.ValueOf(&q).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		default:
			t.Fatalf("field %s of kind %s: extend this test", v.Type().Field(i).Name, f.Kind())
		}
		variants = append(variants, q)
	}
	variants = append(variants,
		index.MatchQuery{Notes: []string{"a", "b"}}, index.MatchQuery{Notes: []string{"a\x00b"}},
		index.MatchQuery{Notes: []string{"ab"}}, index.MatchQuery{Accords: []index.AccordWant{{Name: "woody", Strength: 40.5}}})
	seen := map[string]int{}
	for i, q := range variants {
		k := cacheKey("match", q)
		if j, dup := seen[k]; dup {
			t.Errorf("queries %d and %d share the key %q:\n%+v\n%+v", j, i, k, variants[j], q)
		}
		seen[k] = i
	}
	if cacheKey("a", struct{ Slug string }{"x"}) == cacheKey("b", struct{ Slug string }{"x"}) {
		t.Error("the route is not part of the key")
	}
	if n := testing.AllocsPerRun(100, func() {
		cacheKey("similar", struct {
			Slug  string
			Limit int
		}{"dior-sauvage", 10})
	}); n > 1 {
		t.Errorf("cacheKey allocates %v times, want at most 1", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("a query holding a map must not make a key")
		}
	}()
	cacheKey("bad", struct{ M map[string]int }{})
}

// versionedImages is an Images whose URLs carry a version that can change.
type versionedImages struct{ v *int }

func (f versionedImages) ImageURL(id int64) string {
	return "https://img/" + strconv.FormatInt(id, 10) + ".jpg?v=" + strconv.Itoa(*f.v)
}
func (f versionedImages) TransparentURL(id int64) string {
	return "https://img/n/" + strconv.FormatInt(id, 10) + ".webp?v=" + strconv.Itoa(*f.v)
}
func (f versionedImages) TransparentAvailable(id int64) bool { return true }

// TestFrozenImageURLs: the image host's URLs are holes too, so a kept
// answer gives an image's new URL (its new version) within refillEvery of
// the change (issue 14, finding 2).
func TestFrozenImageURLs(t *testing.T) {
	v := 1
	u := view.NewURLs("https://x", versionedImages{&v}, nil)
	en := encoder{render: &render{urls: u}}
	b := append([]byte(`{"p":{"id":"a"`), nil...)
	b = en.appendImages(b, 7, true)
	b = append(b, "}}"...)
	fz := newFrozen(append(b, '\n'), en.holes, answerCounts{})
	want := func(v int) string {
		return `{"p":{"id":"a","image":"https://img/7.jpg?v=` + strconv.Itoa(v) +
			`","imageTransparent":"https://img/n/7.webp?v=` + strconv.Itoa(v) + `","imageTransparentAvailable":true}}` + "\n"
	}
	t0 := time.Unix(1000, 0)
	if body, _ := fz.answer(u, t0); string(body) != want(1) {
		t.Fatalf("got  %s\nwant %s", body, want(1))
	}
	v = 2
	if body, _ := fz.answer(u, t0.Add(refillEvery)); string(body) != want(2) {
		t.Fatalf("after a new version: got  %s\nwant %s", body, want(2))
	}
}
