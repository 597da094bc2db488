package access

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// callTo is the Call of request r to endpoint from ip, as CallOf reads it.
func callTo(endpoint, ip string, r *http.Request) *Call {
	return &Call{Endpoint: endpoint, ClientIP: ip, Path: r.URL.Path, Query: r.URL.RawQuery}
}

func testWalkers(max int) (*walkers, *testclock.Clock) {
	cfg := AbuseConfig{PageWalk: 10, SlugWalk: 10, MaxWalkers: max, Window: time.Minute}
	cfg.setDefaults()
	return newWalkers(cfg), testclock.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
}

// pages sends the list requests of key for pages, a second apart, and
// returns the kinds raised.
func (ws *walkers) pages(clock *testclock.Clock, key string, pages ...int) []string {
	var kinds []string
	for _, p := range pages {
		clock.Add(time.Second)
		r := httptest.NewRequest("GET", fmt.Sprintf("/api/perfumes?sort=name&page=%d&limit=100", p), nil)
		if s, ok := ws.note(callTo("perfumes.list", "192.0.2.1", r), key, clock.Now()); ok {
			kinds = append(kinds, s.Kind)
		}
	}
	return kinds
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestPageWalkOutOfOrder: a walk fetched in parallel, whose answers come
// out of order, or with a page fetched again, is still a walk; jumps
// around the list are not.
func TestPageWalkOutOfOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages []int
		want  int
	}{
		{"in order", seq(1, 10), 1},
		{"parallel, out of order", []int{1, 3, 2, 5, 4, 4, 7, 6, 9, 8, 10}, 1},
		{"one page more than once", []int{1, 2, 2, 3, 1, 4, 5, 6, 7, 8, 8, 9, 10}, 1},
		{"starting past page 1", seq(31, 40), 1},
		{"jumping", []int{1, 2, 3, 20, 21, 22, 50, 51, 52, 53, 90, 91, 92}, 0},
		{"the first pages again and again", []int{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 1, 2}, 0},
		{"nine pages", seq(1, 9), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, clock := testWalkers(100)
			if got := ws.pages(clock, "fds_a", tc.pages...); len(got) != tc.want {
				t.Fatalf("signals %v, want %d", got, tc.want)
			}
		})
	}
}

// TestPageWalkAnotherClient: the walk survives a few requests of another
// client of the same key, and a new walk starts after walkStrays of them.
func TestPageWalkAnotherClient(t *testing.T) {
	ws, clock := testWalkers(100)
	if got := ws.pages(clock, "fds_a", 1, 2, 3, 4, 5, 40, 41, 6, 7, 8, 9, 10); len(got) != 1 {
		t.Fatalf("walk with strays: %v", got)
	}
	ws, clock = testWalkers(100)
	strays := []int{100, 200, 300, 400, 500, 600, 700, 800}
	pages := append(append(seq(1, 5), strays...), seq(6, 10)...)
	if got := ws.pages(clock, "fds_a", pages...); len(got) != 0 {
		t.Fatalf("a walk broken by %d requests off it raised %v", len(strays), got)
	}
}

// TestWalkersBounded: the walks of at most MaxWalkers keys are followed;
// the key seen least recently is forgotten first.
func TestWalkersBounded(t *testing.T) {
	ws, clock := testWalkers(3)
	for i := range 1000 {
		ws.pages(clock, fmt.Sprintf("fds_%04d", i), 1)
		if n := ws.size(); n > 3 {
			t.Fatalf("after %d keys: %d followed", i+1, n)
		}
	}
	// a walks 5 pages; b and c are seen; a is seen again (so it stays),
	// d comes: b, the least recent, goes.
	ws, clock = testWalkers(3)
	ws.pages(clock, "a", seq(1, 5)...)
	ws.pages(clock, "b", seq(1, 5)...)
	ws.pages(clock, "c", 1)
	ws.pages(clock, "a", 6)
	ws.pages(clock, "d", 1)
	if got := ws.pages(clock, "a", seq(7, 10)...); len(got) != 1 {
		t.Fatalf("a, seen recently, lost its walk: %v", got)
	}
	if got := ws.pages(clock, "b", seq(6, 10)...); len(got) != 0 {
		t.Fatalf("b, forgotten, kept its walk: %v", got)
	}
	if n := len(ws.byKey); n != 3 {
		t.Fatalf("%d followed", n)
	}
	for w := ws.list.next; w != &ws.list; w = w.next {
		if ws.byKey[w.prefix] != w {
			t.Fatalf("list and map disagree on %q", w.prefix)
		}
	}
}

func TestPageParam(t *testing.T) {
	for _, tc := range []struct {
		query string
		page  int
		ok    bool
	}{
		{"", 1, true},
		{"q=dior", 1, true},
		{"page=7", 7, true},
		{"q=a&page=12&limit=100", 12, true},
		{"pages=3&page=4", 4, true},
		{"page=2&page=3", 2, true},
		{"pag%65=5", 5, true},
		{"q=a+b&page=6", 6, true},
		{"page=", 0, false},
		{"page=0", 0, false},
		{"page=-1", 0, false},
		{"page=x", 0, false},
		{"page=99999999999", 0, false},
		{"page=1000000000", 1_000_000_000, true},
		{"page=1000000001", 0, false},
	} {
		r := httptest.NewRequest("GET", "/api/perfumes?"+tc.query, nil)
		if page, ok := pageParam(r.URL.RawQuery); page != tc.page || ok != tc.ok {
			t.Errorf("%q: %d %v, want %d %v", tc.query, page, ok, tc.page, tc.ok)
		}
	}
}

// BenchmarkWalkers times the walk of one request alone: the lock, the map
// and the list (the Guard's whole path: BenchmarkGuard's memory-list-walk
// and memory-detail-walk).
//
//	go test -run '^$' -bench Walkers -benchmem ./internal/access/
func BenchmarkWalkers(b *testing.B) {
	ws, _ := testWalkers(10_000)
	now := time.Now()
	reqs := make([]*http.Request, 64)
	for i := range reqs {
		reqs[i] = httptest.NewRequest("GET", fmt.Sprintf("/api/perfumes?page=%d", i+1), nil)
	}
	b.Run("list", func(b *testing.B) {
		i := 0
		for b.Loop() {
			ws.note(callTo("perfumes.list", "192.0.2.1", reqs[i%len(reqs)]), "fds_bench", now)
			i++
		}
	})
	details := make([]*http.Request, 64)
	for i := range details {
		details[i] = httptest.NewRequest("GET", fmt.Sprintf("/api/perfumes/brand-%03d-perfume", i), nil)
	}
	b.Run("detail", func(b *testing.B) {
		i := 0
		for b.Loop() {
			ws.note(callTo("perfumes.detail", "192.0.2.1", details[i%len(details)]), "fds_bench", now)
			i++
		}
	})
	b.Run("other endpoint", func(b *testing.B) {
		for b.Loop() {
			ws.note(callTo("perfumes.similar", "192.0.2.1", reqs[0]), "fds_bench", now)
		}
	})
}

// slugs sends the detail requests of key for slugs, a second apart, and
// returns the kinds raised.
func (ws *walkers) slugs(clock *testclock.Clock, key string, slugs ...string) []string {
	var kinds []string
	for _, s := range slugs {
		clock.Add(time.Second)
		r := httptest.NewRequest("GET", "/api/perfumes/"+s, nil)
		if s, ok := ws.note(callTo("perfumes.detail", "192.0.2.1", r), key, clock.Now()); ok {
			kinds = append(kinds, s.Kind)
		}
	}
	return kinds
}

// TestSlugWalk: details fetched in slug order are a walk, answers a little
// out of order too; details in any other order are not.
func TestSlugWalk(t *testing.T) {
	catalogue := make([]string, 200)
	for i := range catalogue {
		catalogue[i] = fmt.Sprintf("brand-%03d-perfume", i)
	}
	shuffled := append([]string(nil), catalogue...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	c := catalogue
	for _, tc := range []struct {
		name  string
		slugs []string
		want  int
	}{
		{"in order", c[:10], 1},
		{"nine", c[:9], 0},
		// The late ones (c1, c4, c7) do not count: 10 of 13 are in order.
		{"out of order", []string{c[0], c[2], c[1], c[3], c[5], c[4], c[6], c[6], c[8], c[7], c[9], c[10], c[11], c[12]}, 1},
		{"out of order, 9 in order", []string{c[0], c[2], c[1], c[3], c[5], c[4], c[6], c[6], c[8], c[7], c[9], c[10], c[11]}, 0},
		{"from the middle", c[120:130], 1},
		{"shuffled", shuffled, 0},
		{"backwards", []string{c[9], c[8], c[7], c[6], c[5], c[4], c[3], c[2], c[1], c[0]}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, clock := testWalkers(100)
			if got := ws.slugs(clock, "fds_a", tc.slugs...); len(got) != tc.want {
				t.Fatalf("signals %v, want %d", got, tc.want)
			}
		})
	}
}

// TestSlugWalkRedactsKeys: a key sent as a slug does not reach the signal.
func TestSlugWalkRedactsKeys(t *testing.T) {
	secret, _ := apikey.GenerateKey()
	ws, clock := testWalkers(100)
	var got usage.Signal
	for i := range 10 {
		slug := fmt.Sprintf("a-%02d", i)
		if i == 9 {
			slug = secret
		}
		clock.Add(time.Second)
		if s, ok := ws.note(callTo("perfumes.detail", "192.0.2.1", httptest.NewRequest("GET", "/api/perfumes/"+slug, nil)), "fds_a", clock.Now()); ok {
			got = s
		}
	}
	if got.Kind != SignalSlugWalk || strings.Contains(got.Detail, secret) || !strings.Contains(got.Detail, "REDACTED") {
		t.Fatalf("signal %+v", got)
	}
}

// TestFeedWalk: a key that pages through the change feed past FeedWalk
// records (each page counted at its size, Call.Cost × 100) within the
// window raises feed_walk once a window; another key's pages are its own.
func TestFeedWalk(t *testing.T) {
	cfg := AbuseConfig{FeedWalk: 2500, Window: time.Minute}
	cfg.setDefaults()
	ws, clock := newWalkers(cfg), testclock.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	feed := func(key string, cost int64) string {
		clock.Add(time.Second)
		r := httptest.NewRequest("GET", "/api/perfumes/changes?limit=1000", nil)
		c := callTo("perfumes.changes", "192.0.2.1", r)
		c.Cost = cost
		if s, ok := ws.note(c, key, clock.Now()); ok {
			if s.Count < 2500 || !strings.Contains(s.Detail, "change feed") {
				t.Errorf("signal %+v", s)
			}
			return s.Kind
		}
		return ""
	}
	var kinds []string
	for _, cost := range []int64{10, 10, 1, 10, 10} { // 1,000 + 1,000 + 100 + 1,000: the fourth page crosses 2,500
		if k := feed("fds_walker", cost); k != "" {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 || kinds[0] != SignalFeedWalk {
		t.Errorf("kinds %v, want one %s", kinds, SignalFeedWalk)
	}
	if k := feed("fds_other", 10); k != "" {
		t.Errorf("another key's first page raised %s", k)
	}
	clock.Add(time.Minute) // a new window: the walk starts again
	if k := feed("fds_walker", 10); k != "" {
		t.Errorf("the first page of a new window raised %s", k)
	}
}
