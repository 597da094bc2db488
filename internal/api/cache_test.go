package api

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// TestAnswerCacheSingleFlight: while one request makes an answer, others
// for the same key wait for it; a failure is not kept.
func TestAnswerCacheSingleFlight(t *testing.T) {
	c := newAnswerCache(1, 0)
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
	want := newFrozen([]byte("{}\n"), nil, answerCounts{}, view.Builder{})
	g.finish("k", p, want, nil, time.Millisecond)
	<-p2.done
	if p2.fz != want || p2.err != nil {
		t.Fatal("the waiting request did not get the answer")
	}
	if got, _, _ := g.lookup("k"); got != want {
		t.Fatal("the answer was not kept")
	}
	_, p, _ = g.lookup("bad")
	g.finish("bad", p, nil, errors.New("boom"), time.Millisecond)
	if _, _, lead := g.lookup("bad"); !lead {
		t.Fatal("a failed answer must not be kept")
	}
	if c.generation(&index.Index{}) == g {
		t.Fatal("a new catalogue must start a new generation")
	}
	// k: a miss, a wait and a hit; bad: a miss (failed, not rejected) and a miss.
	if got, want := c.statsNow(), (AnswerCacheStats{Hits: 2, Misses: 3, LimitBytes: 1 << 20}); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
}

// TestAnswerCacheAdmission: an answer is kept only when it cost at least
// minCost to make and fits in a shard; the others are counted as rejected,
// and a request for them makes them again (waiting requests still get
// them).
func TestAnswerCacheAdmission(t *testing.T) {
	c := newAnswerCache(1, 0) // 64 KiB per shard
	g := c.generation(&index.Index{})
	small, huge := make([]byte, 100), make([]byte, 80<<10)
	for _, tt := range []struct {
		key  string
		body []byte
		cost time.Duration
		kept bool
	}{
		{"cheap", small, minAnswerCost - 1, false},
		{"free", small, 0, false},
		{"dear", small, minAnswerCost, true},
		{"dearer", small, time.Millisecond, true},
		{"too large", huge, time.Second, false},
	} {
		_, p, lead := g.lookup(tt.key)
		_, p2, _ := g.lookup(tt.key)
		want := newFrozen(tt.body, nil, answerCounts{}, view.Builder{})
		g.finish(tt.key, p, want, nil, tt.cost)
		if <-p2.done; !lead || p2.fz != want {
			t.Fatalf("%s: the waiting request did not get the answer", tt.key)
		}
		fz, _, lead := g.lookup(tt.key)
		if kept := fz != nil; kept != tt.kept || lead == kept {
			t.Errorf("%s (%d bytes, made in %v): kept %v, want %v", tt.key, len(tt.body), tt.cost, kept, tt.kept)
		}
	}
	st := c.statsNow()
	if st.Rejected != 3 || st.Misses != 5+3 || st.Hits != 5+2 {
		t.Errorf("stats %+v, want 3 rejected, 8 misses, 7 hits", st)
	}
}

// TestAnswerCacheEvictionOrder: a full shard evicts the answer of lowest
// cost per byte first; an answer used since the clock moved outlives an
// unused one of the same worth; and one-off answers leave as the clock
// passes them, however dear they once were.
func TestAnswerCacheEvictionOrder(t *testing.T) {
	body := make([]byte, 1000)
	sh := newTestShard()
	size := newFrozen(body, nil, answerCounts{}, view.Builder{}).size() + 1 + slotOverhead
	limit := 4 * size // four one-letter keys
	put := func(key string, cost time.Duration) int {
		t.Helper()
		kept, evicted := sh.put(key, newFrozen(body, nil, answerCounts{}, view.Builder{}), cost, limit)
		if !kept {
			t.Fatalf("%s not kept", key)
		}
		return evicted
	}
	has := func(keys string) {
		t.Helper()
		var got []byte
		for _, k := range "abcdefghijklmnopqrstuvwxyz" {
			if sh.m[string(k)] != nil {
				got = append(got, byte(k))
			}
		}
		if string(got) != keys {
			t.Fatalf("kept %q, want %q", got, keys)
		}
		checkShard(t, sh)
	}
	us := time.Microsecond
	put("a", 400*us) // priorities: the clock (0) + cost per byte
	put("b", 100*us)
	put("c", 300*us)
	put("d", 200*us)
	has("abcd")
	if n := put("e", 250*us); n != 1 {
		t.Fatalf("%d evicted, want 1", n)
	}
	has("acde") // b, the cheapest, went first; the clock is now b's priority
	put("f", 250*us)
	has("acef") // then d
	// a and c are used now: they outlive e and f, newer and dearer than c.
	sh.m["a"].touch(sh.clock.Load())
	sh.m["c"].touch(sh.clock.Load())
	put("g", 120*us)
	has("acfg")
	put("h", 100*us)
	has("acgh")
	// Answers nobody asks for again leave in time, however dear: the clock
	// rises with every eviction, and the newcomers' priorities with it.
	for _, k := range "ijkl" {
		put(string(k), 300*us)
	}
	has("ijkl")
}

// TestAnswerCacheSizeAccounting: through admissions, replacements and
// evictions a shard's byte count is the sum of its answers' sizes, never
// above its limit, and its queue holds exactly its answers.
func TestAnswerCacheSizeAccounting(t *testing.T) {
	sh := newTestShard()
	const limit = 64 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		key := strconv.Itoa(rng.IntN(300))
		holes := make([]hole, rng.IntN(3))
		fz := newFrozen(make([]byte, rng.IntN(8<<10)), holes, answerCounts{}, view.Builder{})
		kept, _ := sh.put(key, fz, time.Duration(rng.IntN(1000))*time.Microsecond, limit)
		if want := fz.size()+len(key)+slotOverhead <= limit; kept != want {
			t.Fatalf("put %d: kept %v, want %v", i, kept, want)
		}
		if rng.IntN(4) == 0 {
			if e := sh.m[strconv.Itoa(rng.IntN(300))]; e != nil {
				e.touch(sh.clock.Load())
			}
		}
		if sh.bytes > limit {
			t.Fatalf("put %d: %d bytes, limit %d", i, sh.bytes, limit)
		}
		checkShard(t, sh)
	}
}

// TestAnswerCacheBound: a shard never holds more than its share.
func TestAnswerCacheBound(t *testing.T) {
	c := newAnswerCache(1, 0) // 64 KiB per shard
	g := c.generation(&index.Index{})
	body := make([]byte, 10<<10)
	for i := range 1000 {
		k := strconv.Itoa(i)
		_, p, _ := g.lookup(k)
		g.finish(k, p, newFrozen(body, nil, answerCounts{}, view.Builder{}), nil, time.Millisecond)
	}
	for i := range g.shards {
		if sh := &g.shards[i]; sh.bytes > g.limit || len(sh.m) == 0 {
			t.Fatalf("shard %d: %d bytes in %d answers, limit %d", i, sh.bytes, len(sh.m), g.limit)
		}
	}
	st := c.statsNow()
	kept := int64(0)
	for i := range g.shards {
		kept += int64(len(g.shards[i].m))
	}
	if st.Misses != 1000 || st.Evictions != 1000-kept || st.Rejected != 0 || st.Bytes > 1<<20 || st.Bytes < 1<<20-16*(10<<10+300) {
		t.Errorf("stats %+v with %d answers kept", st, kept)
	}
}

// TestAnswerCacheSize: the automatic size is a tenth of the memory limit,
// no more than a quarter of what the catalogue leaves less the item memo's
// share, within 8 and 256
// MB; an explicit size wins.
func TestAnswerCacheSize(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		mb       int
		limit    int64
		perfumes int
		want     int
	}{
		{64, 350 * mb, 200_000, 64 * mb},
		{0, 0, 37_000, DefaultAnswerCacheMB * mb},
		{0, math.MaxInt64, 37_000, DefaultAnswerCacheMB * mb},
		{0, 350 * mb, 37_000, 35 * mb},
		{0, 350 * mb, 100_000, 35 * mb},
		// The item memo's share comes out of the quarter the catalogue leaves.
		{0, 350 * mb, 200_000, (350*mb-200_000*catalogueBytesPerPerfume)/4 - (350*mb-200_000*catalogueBytesPerPerfume)/8},
		{0, 350 * mb, 230_000, (350*mb-230_000*catalogueBytesPerPerfume)/4 - (350*mb-230_000*catalogueBytesPerPerfume)/8},
		{0, 350 * mb, 250_000, 8 * mb}, // what is left is below the least size
		{0, 350 * mb, 500_000, 8 * mb},
		{0, 40 * mb, 0, 8 * mb},
		{0, 4 << 30, 37_000, 256 * mb},
	} {
		if got := answerCacheBytes(tt.mb, tt.limit, tt.perfumes); got != tt.want {
			t.Errorf("answerCacheBytes(%d, %d, %d) = %d, want %d", tt.mb, tt.limit, tt.perfumes, got, tt.want)
		}
	}
	if c := newAnswerCache(-1, 350*mb); c.generation(&index.Index{}) != nil {
		t.Error("a negative size must turn the cache off")
	}
}

// TestAnswerCacheConcurrent: many requests for overlapping answers at once
// (run with -race) each get their answer, and the counts add up.
func TestAnswerCacheConcurrent(t *testing.T) {
	c := newAnswerCache(1, 0)
	g := c.generation(&index.Index{})
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 0))
			for range each {
				k := strconv.Itoa(rng.IntN(400))
				fz, p, lead := g.lookup(k)
				switch {
				case lead:
					fz = newFrozen([]byte(k), nil, answerCounts{}, view.Builder{})
					g.finish(k, p, fz, nil, time.Duration(rng.IntN(50))*time.Microsecond)
				case fz == nil:
					<-p.done
					fz = p.fz
				}
				if body := fz.filled.Load().body; string(body) != k {
					t.Errorf("%s: got the answer %q", k, body)
					return
				}
			}
		})
	}
	wg.Wait()
	st := c.statsNow()
	if st.Hits+st.Misses != workers*each || st.Rejected > st.Misses {
		t.Errorf("stats %+v after %d requests", st, workers*each)
	}
	for i := range g.shards {
		checkShard(t, &g.shards[i])
	}
}

func newTestShard() *answerShard {
	return &answerShard{m: map[string]*frozen{}, pending: map[string]*pendingAnswer{}}
}

// checkShard checks a shard's bookkeeping: its bytes are its answers'
// sizes, its queue a heap of exactly its answers, none below the clock.
func checkShard(t *testing.T, sh *answerShard) {
	t.Helper()
	if len(sh.queue) != len(sh.m) {
		t.Fatalf("%d answers queued, %d kept", len(sh.queue), len(sh.m))
	}
	bytes, clock := 0, math.Float64frombits(sh.clock.Load())
	for i, e := range sh.queue {
		bytes += e.footprint
		switch {
		case e.pos != i || sh.m[e.key] != e:
			t.Fatalf("queue slot %d holds %q at %d", i, e.key, e.pos)
		case i > 0 && e.prio < sh.queue[(i-1)/2].prio:
			t.Fatalf("queue slot %d is not a heap", i)
		case e.prio < clock:
			t.Fatalf("%q has priority %v below the clock %v", e.key, e.prio, clock)
		}
	}
	if bytes != sh.bytes {
		t.Fatalf("%d bytes counted, %d kept", sh.bytes, bytes)
	}
}

// TestFrozenRefill: a kept answer is written as filled until the image
// host's stamp moves, then filled again, whatever the lengths of the new
// values; an image host without a stamp has its values asked every time.
func TestFrozenRefill(t *testing.T) {
	avail := map[int64]bool{}
	var stamp uint64
	u := view.NewBuilder("https://x", stampedImages{imagesFunc(func(id int64) bool { return avail[id] }), &stamp}, nil)
	fz := newFrozen([]byte(`{"a":,"b":}`+"\n"), []hole{{pos: 5, id: 1}, {pos: 10, id: 2}}, answerCounts{}, u)
	check := func(u view.Builder, want string) {
		t.Helper()
		body, length := fz.answer(u, nil)
		if string(body) != want+"\n" || length[0] != strconv.Itoa(len(want)+1) {
			t.Fatalf("got %s (%v), want %s", body, length, want)
		}
	}
	check(u, `{"a":false,"b":false}`)
	avail[2] = true
	check(u, `{"a":false,"b":false}`) // the stamp did not move: as filled
	stamp++
	check(u, `{"a":false,"b":true}`)
	avail[1], avail[2] = true, false
	stamp++
	check(u, `{"a":true,"b":false}`) // filled again from a filled answer
	avail[1], avail[2] = true, true
	stamp++
	check(u, `{"a":true,"b":true}`)

	// Without a stamp, every answer is filled.
	plain := view.NewBuilder("https://x", imagesFunc(func(id int64) bool { return avail[id] }), nil)
	check(plain, `{"a":true,"b":true}`)
	avail[1] = false
	check(plain, `{"a":false,"b":true}`)
	avail[2] = false
	check(plain, `{"a":false,"b":false}`)
}

// TestFrozenRefillConcurrent: requests writing a kept answer while the
// image host's versions change (under -race in CI) each get a whole answer,
// its Content-Length right, every URL of some version (one filled while
// the versions changed may mix two: the next request fills it again), and
// once the changes stop, the last version everywhere.
func TestFrozenRefillConcurrent(t *testing.T) {
	var version atomic.Int64
	version.Store(1)
	u := view.NewBuilder("https://x", atomicVersionImages{&version}, nil)
	en := encoder{render: newRender(u)}
	var b []byte
	for id := range int64(20) {
		b = append(b, `{"id":`...)
		b = en.appendImages(b, id, true)
		b = append(b, "},"...)
	}
	fz := newFrozen(append(b, '\n'), en.holes, answerCounts{}, u)
	want := func(v int64) string {
		var w []byte
		for id := range int64(20) {
			w = append(w, `{"id":`...)
			w = append(w, `,"image":"https://img/`+strconv.FormatInt(id, 10)+`.jpg?v=`+strconv.FormatInt(v, 10)+`"`...)
			w = append(w, `,"imageTransparent":"https://img/n/`+strconv.FormatInt(id, 10)+`.webp?v=`+strconv.FormatInt(v, 10)+`"`...)
			w = append(w, `,"imageTransparentAvailable":true},`...)
		}
		return string(w) + "\n"
	}
	anyVersion := regexp.MustCompile(`\?v=[0-9]+"`)
	last := readWhileVersionsChange(&version, func() {
		for range 200 {
			body, length := fz.answer(u, nil)
			if anyVersion.ReplaceAllString(string(body), `?v=0"`) != want(0) || length[0] != strconv.Itoa(len(body)) {
				t.Errorf("got a broken answer (Content-Length %s): %s", length[0], body)
				return
			}
		}
	})
	if body, _ := fz.answer(u, nil); string(body) != want(last) {
		t.Errorf("after the last change: got %s", body)
	}
}

// readWhileVersionsChange runs read in 8 goroutines while the calling one
// stores versions 2, 3, ... in version, ten microseconds apart, until every
// read has returned (so each read overlaps changes) and at least 300
// versions were stored; it returns the last version stored.
func readWhileVersionsChange(version *atomic.Int64, read func()) int64 {
	var readers sync.WaitGroup
	for range 8 {
		readers.Go(read)
	}
	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	for v := int64(2); ; v++ {
		version.Store(v)
		select {
		case <-done:
			if v >= 300 {
				return v
			}
		default:
		}
		time.Sleep(10 * time.Microsecond)
	}
}

// atomicVersionImages is an Images whose URLs carry a version that other
// goroutines change, which is also its stamp.
type atomicVersionImages struct{ v *atomic.Int64 }

func (f atomicVersionImages) ImageURL(id int64) string {
	return "https://img/" + strconv.FormatInt(id, 10) + ".jpg?v=" + strconv.FormatInt(f.v.Load(), 10)
}
func (f atomicVersionImages) TransparentURL(id int64) string {
	return "https://img/n/" + strconv.FormatInt(id, 10) + ".webp?v=" + strconv.FormatInt(f.v.Load(), 10)
}
func (f atomicVersionImages) TransparentAvailable(id int64) bool { return true }
func (f atomicVersionImages) Stamp() uint64                      { return uint64(f.v.Load()) }

// imagesFunc is an Images whose availability is a function.
type imagesFunc func(id int64) bool

func (f imagesFunc) ImageURL(id int64) string           { return "i" }
func (f imagesFunc) TransparentURL(id int64) string     { return "t" }
func (f imagesFunc) TransparentAvailable(id int64) bool { return f(id) }

// stampedImages is an Images with a stamp the test moves.
type stampedImages struct {
	imagesFunc
	stamp *uint64
}

func (s stampedImages) Stamp() uint64 { return *s.stamp }

// TestCacheKeyEveryField: the key of a query changes with each of its
// fields, slices included, and no two queries of this set share a key.
func TestCacheKeyEveryField(t *testing.T) {
	base := index.MatchQuery{Accords: []index.AccordWant{{Name: "woody", Strength: 40}}, Notes: []string{"rose"},
		Gender: "masculine", Season: "winter", Time: "day", Page: 1, Limit: 20,
		Exclude: index.Want{Accords: []string{"sweet"}, Notes: []string{"oud"}}, Sort: "popular",
		Wants: []index.Want{{Accords: []string{"vanilla"}}}, Prefer: index.Preference{Gender: "feminine", Season: "fall", Time: "night"}, Brand: "dior"}
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
		case reflect.Struct: // each of its fields, as a query's
			for j := range f.NumField() {
				q := base
				g := reflect.ValueOf(&q).Elem().Field(i).Field(j)
				switch g.Kind() {
				case reflect.String:
					g.SetString(g.String() + "x")
				case reflect.Slice:
					g.Set(reflect.MakeSlice(g.Type(), 0, 0))
				default:
					t.Fatalf("field %s.%s of kind %s: extend this test", v.Type().Field(i).Name, f.Type().Field(j).Name, g.Kind())
				}
				variants = append(variants, q)
			}
			continue
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

func (f versionedImages) Stamp() uint64 { return uint64(*f.v) }

// TestFrozenImageURLs: the image host's URLs are holes too, so a kept
// answer gives an image's new URL (its new version) as soon as the host's
// stamp moves with it (an import that changes the bytes), and the versions of different
// lengths land where they belong.
func TestFrozenImageURLs(t *testing.T) {
	v := 1
	u := view.NewBuilder("https://x", versionedImages{&v}, nil)
	en := encoder{render: newRender(u)}
	b := append([]byte(`{"p":{"id":"a"`), nil...)
	b = en.appendImages(b, 7, true)
	b = append(b, "}}"...)
	fz := newFrozen(append(b, '\n'), en.holes, answerCounts{}, u)
	want := func(v int) string {
		return `{"p":{"id":"a","image":"https://img/7.jpg?v=` + strconv.Itoa(v) +
			`","imageTransparent":"https://img/n/7.webp?v=` + strconv.Itoa(v) + `","imageTransparentAvailable":true}}` + "\n"
	}
	for _, v = range []int{1, 2, 1000, 3, 3} {
		if body, _ := fz.answer(u, nil); string(body) != want(v) {
			t.Fatalf("version %d: got  %s\nwant %s", v, body, want(v))
		}
	}
}

// TestHandleAbandonedRequest: a handler that gives up because its client
// went away (its request's context canceled) is not an internal error: no
// ERROR line and no problem answer; the same error while the client is
// still there is one.
func TestHandleAbandonedRequest(t *testing.T) {
	var logs bytes.Buffer
	a := &API{log: slog.New(slog.NewTextHandler(&logs, nil))}
	h := a.handle(func(w http.ResponseWriter, r *http.Request) error { return context.Cause(r.Context()) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/perfumes/match?accords=woody", nil).WithContext(ctx))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("abandoned request: %d %q, logs:\n%s", rec.Code, rec.Body, logs.String())
	}
	h = a.handle(func(w http.ResponseWriter, r *http.Request) error { return context.Canceled })
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/perfumes", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a canceled error with the client there: %d, logs:\n%s", rec.Code, logs.String())
	}
}
