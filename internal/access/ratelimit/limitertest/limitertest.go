// Package limitertest is the contract test suite every ratelimit.Limiter
// backend runs: the in-process limiter always, the Redis limiter when a
// test Redis is configured. Time is injected, so the windows' boundaries
// are tested exactly and no test waits.
package limitertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// Base is the start time of the suite's clocks: a whole minute, so that
// bucket boundaries fall on round offsets from it.
var Base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// NewFunc returns a fresh limiter reading the given clock. Backends whose
// state outlives the limiter (Redis) must isolate and clean up per test.
type NewFunc func(t *testing.T, now func() time.Time) ratelimit.Limiter

// Run runs the contract against the backend made by newLimiter.
func Run(t *testing.T, newLimiter NewFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, newLimiter NewFunc)
	}{
		{"MinuteBoundary", testMinuteBoundary},
		{"TrailingWindow", testTrailingWindow},
		{"RefusedDoNotCount", testRefusedDoNotCount},
		{"DayWindow", testDayWindow},
		{"BothWindows", testBothWindows},
		{"Overrides", testOverrides},
		{"BucketedMinute", testBucketedMinute},
		{"BucketedDay", testBucketedDay},
		{"ModeSwitch", testModeSwitch},
		{"KeysIndependent", testKeysIndependent},
		{"ConcurrentFreeKey", testConcurrentFreeKey},
		{"RandomAgainstReference", testRandomAgainstReference},
		{"PeekCountsNothing", testPeekCountsNothing},
		{"AllowN", testAllowN},
		{"ConcurrentAllowN", testConcurrentAllowN},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newLimiter) })
	}
}

// fixture is one limiter with its clock and a key id.
type fixture struct {
	t     *testing.T
	clock *testclock.Clock
	lim   ratelimit.Limiter
	id    string
}

func newFixture(t *testing.T, newLimiter NewFunc) *fixture {
	c := testclock.New(Base)
	return &fixture{t: t, clock: c, lim: newLimiter(t, c.Now), id: "fds_" + fmt.Sprintf("%08d", rand.IntN(1e8))}
}

// at sets the clock to Base+off and asks once.
func (f *fixture) at(off time.Duration, l apikey.Limits) ratelimit.Decision {
	f.t.Helper()
	f.clock.Set(Base.Add(off))
	d, err := f.lim.Allow(context.Background(), f.id, l)
	if err != nil {
		f.t.Fatalf("Allow at +%v: %v", off, err)
	}
	return d
}

// want checks the admission of one request at +off.
func (f *fixture) want(off time.Duration, l apikey.Limits, allowed bool) ratelimit.Decision {
	f.t.Helper()
	d := f.at(off, l)
	if d.Allowed != allowed {
		f.t.Fatalf("at +%v: allowed = %v, want %v (decision %+v)", off, d.Allowed, allowed, d)
	}
	return d
}

// fill admits n requests at +off, each of which must pass.
func (f *fixture) fill(off time.Duration, l apikey.Limits, n int) {
	f.t.Helper()
	for i := 0; i < n; i++ {
		f.want(off, l, true)
	}
}

func testMinuteBoundary(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	free := apikey.Limits{PerMinute: 60, PerDay: 1000}
	d := f.want(0, free, true)
	if d.Minute.Remaining != 59 || d.Day.Remaining != 999 || d.Minute.Reset != time.Minute || d.Day.Reset != 24*time.Hour {
		t.Fatalf("first decision: %+v", d)
	}
	f.fill(0, free, 59)
	d = f.want(0, free, false)
	if got := d.Violated(); !slices.Equal(got, []string{"minute"}) {
		t.Fatalf("violated = %v", got)
	}
	if d.RetryAfter() != time.Minute || d.Minute.Remaining != 0 || d.Day.Remaining != 940 {
		t.Fatalf("refusal: retry %v, %+v", d.RetryAfter(), d)
	}
	d = f.want(time.Minute-time.Microsecond, free, false)
	if d.RetryAfter() != time.Microsecond {
		t.Fatalf("retry just before the boundary = %v", d.RetryAfter())
	}
	// At +60 s the trailing window (0, 60] no longer holds the first 60.
	d = f.want(time.Minute, free, true)
	if d.Minute.Remaining != 59 || d.Day.Remaining != 939 {
		t.Fatalf("after the boundary: %+v", d)
	}
}

func testTrailingWindow(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 3, PerDay: 1000}
	for _, s := range []int{0, 20, 40} {
		f.want(time.Duration(s)*time.Second, l, true)
	}
	d := f.want(50*time.Second, l, false)
	if d.RetryAfter() != 10*time.Second {
		t.Fatalf("retry at +50s = %v, want 10s", d.RetryAfter())
	}
	f.want(60*time.Second, l, true)
	d = f.want(61*time.Second, l, false) // (1, 61] holds 20, 40, 60
	if d.RetryAfter() != 19*time.Second {
		t.Fatalf("retry at +61s = %v, want 19s", d.RetryAfter())
	}
	f.want(80*time.Second, l, true)
	d = f.want(81*time.Second, l, false)
	if d.Minute.Reset != 19*time.Second {
		t.Fatalf("reset at +81s = %v", d.Minute.Reset)
	}
}

func testRefusedDoNotCount(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 2, PerDay: 1000}
	f.want(0, l, true)
	f.want(time.Second, l, true)
	for i := 0; i < 50; i++ {
		f.want(2*time.Second+time.Duration(i)*time.Second, l, false)
	}
	// Had the refusals counted, the window would still be full.
	f.want(60*time.Second, l, true)
	f.want(61*time.Second, l, true)
	d := f.want(62*time.Second, l, false)
	if d.Day.Remaining != 1000-4 {
		t.Fatalf("day remaining %d, want 996 (refusals counted?)", d.Day.Remaining)
	}
}

func testDayWindow(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 100, PerDay: 5}
	for i := 0; i < 5; i++ {
		f.want(time.Duration(i)*time.Hour, l, true)
	}
	d := f.want(5*time.Hour, l, false)
	if !slices.Equal(d.Violated(), []string{"day"}) || d.RetryAfter() != 19*time.Hour || d.Minute.Remaining != 100 {
		t.Fatalf("day refusal: violated %v retry %v %+v", d.Violated(), d.RetryAfter(), d)
	}
	f.want(24*time.Hour-time.Microsecond, l, false)
	f.want(24*time.Hour, l, true)
	f.want(24*time.Hour+time.Minute, l, false)
	f.want(25*time.Hour, l, true)
}

func testBothWindows(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 2, PerDay: 2}
	f.fill(0, l, 2)
	d := f.want(time.Second, l, false)
	if !slices.Equal(d.Violated(), []string{"minute", "day"}) {
		t.Fatalf("violated = %v", d.Violated())
	}
	if d.RetryAfter() != 24*time.Hour-time.Second || d.Minute.RetryAfter != 59*time.Second {
		t.Fatalf("retry = %v, minute %v", d.RetryAfter(), d.Minute.RetryAfter)
	}
	d = f.want(61*time.Second, l, false)
	if !slices.Equal(d.Violated(), []string{"day"}) || d.Minute.Remaining != 2 {
		t.Fatalf("later: violated %v, %+v", d.Violated(), d)
	}
}

func testOverrides(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	f.fill(0, apikey.Limits{PerMinute: 60, PerDay: 1000}, 10)
	lower := apikey.Limits{PerMinute: 5, PerDay: 1000}
	d := f.want(time.Second, lower, false)
	if d.RetryAfter() != 59*time.Second || d.Minute.Remaining != 0 {
		t.Fatalf("lowered: %+v", d)
	}
	f.want(time.Minute, lower, true)
	higher := apikey.Limits{PerMinute: 20, PerDay: 1000}
	f.fill(time.Minute, higher, 19)
	f.want(time.Minute, higher, false)
	// A day override lower than what was used refuses at once.
	d = f.want(2*time.Minute, apikey.Limits{PerMinute: 60, PerDay: 20}, false)
	if !slices.Equal(d.Violated(), []string{"day"}) {
		t.Fatalf("day override: %v", d.Violated())
	}
}

func testBucketedMinute(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 2000, PerDay: 5_000_000}
	half := 500 * time.Millisecond
	f.fill(half, l, 2000)
	d := f.want(half, l, false)
	// The 1 s bucket [0, 1s) counts until +61 s: the documented bound.
	if d.RetryAfter() != 60*time.Second+half {
		t.Fatalf("bucketed retry = %v", d.RetryAfter())
	}
	f.want(61*time.Second-time.Microsecond, l, false)
	d = f.want(61*time.Second, l, true)
	if d.Minute.Remaining != 1999 {
		t.Fatalf("after bucket expiry: %+v", d.Minute)
	}
}

func testBucketedDay(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 5000, PerDay: 1500}
	f.fill(30*time.Second, l, 1000)
	f.fill(2*time.Hour, l, 500)
	d := f.want(3*time.Hour, l, false)
	if !slices.Equal(d.Violated(), []string{"day"}) || d.RetryAfter() != 21*time.Hour+time.Minute {
		t.Fatalf("bucketed day: %v retry %v", d.Violated(), d.RetryAfter())
	}
	f.want(24*time.Hour+time.Minute-time.Microsecond, l, false)
	d = f.want(24*time.Hour+time.Minute, l, true)
	if d.Day.Remaining != 999 {
		t.Fatalf("day remaining = %d, want 999", d.Day.Remaining)
	}
}

// testModeSwitch moves a key's limit across DefaultExactMax and back: the
// counts survive each conversion, on the safe side.
func testModeSwitch(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	small := apikey.Limits{PerMinute: ratelimit.DefaultExactMax, PerDay: 5_000_000}
	large := apikey.Limits{PerMinute: ratelimit.DefaultExactMax + 100, PerDay: 5_000_000}
	half := 500 * time.Millisecond
	f.fill(half, small, ratelimit.DefaultExactMax)
	f.want(half, small, false)
	f.fill(half, large, 100)
	d := f.want(half, large, false)
	if d.RetryAfter() != 60*time.Second+half {
		t.Fatalf("after exact to buckets: retry %v", d.RetryAfter())
	}
	// Back to exact: requests are placed at the end of their bucket.
	d = f.want(30*time.Second, small, false)
	if r := d.RetryAfter(); r < 30*time.Second+half || r > 31*time.Second {
		t.Fatalf("after buckets to exact: retry %v", r)
	}
	f.want(61*time.Second-100*time.Millisecond, small, false)
	d = f.want(61*time.Second, small, true)
	if d.Minute.Remaining != ratelimit.DefaultExactMax-1 {
		t.Fatalf("remaining %d", d.Minute.Remaining)
	}
}

func testKeysIndependent(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	l := apikey.Limits{PerMinute: 1, PerDay: 10}
	f.want(0, l, true)
	f.want(0, l, false)
	other := *f
	other.id = f.id + "x"
	other.want(0, l, true)
}

// testConcurrentFreeKey is the acceptance case: 32 concurrent clients on
// one free key are admitted exactly 60 times in a minute.
func testConcurrentFreeKey(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	free := apikey.Limits{PerMinute: 60, PerDay: 1000}
	for round := 0; round < 2; round++ {
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for c := 0; c < 32; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 4; i++ {
					d, err := f.lim.Allow(context.Background(), f.id, free)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						admitted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if got := admitted.Load(); got != 60 {
			t.Fatalf("round %d: admitted %d of 128, want exactly 60", round, got)
		}
		f.clock.Add(time.Minute)
	}
}

// testRandomAgainstReference drives random traffic and checks every
// decision against the contract: exact windows decide exactly like a
// reference log; bucketed ones never over-admit and refuse only when the
// window lengthened by one bucket is full.
func testRandomAgainstReference(t *testing.T, newLimiter NewFunc) {
	for _, l := range []apikey.Limits{{PerMinute: 7, PerDay: 40}, {PerMinute: 1100, PerDay: 1200}, {PerMinute: 1100, PerDay: 3000}} {
		f := newFixture(t, newLimiter)
		rng := rand.New(rand.NewPCG(1, uint64(l.PerMinute)))
		var log []time.Time
		refused := 0
		off := time.Duration(0)
		for i := int64(0); i < max(1500, 2*l.PerDay); i++ {
			// Offer a little more than the minute limit, with a rare long
			// pause so the day window empties too; whole microseconds,
			// Redis's resolution.
			mean := float64(45*time.Second) / float64(l.PerMinute)
			off += time.Duration(rng.ExpFloat64() * mean).Truncate(time.Microsecond)
			if rng.Int64N(l.PerDay) == 0 {
				off += time.Duration(rng.IntN(20)) * time.Hour
			}
			d := f.at(off, l)
			now := Base.Add(off)
			exact := reference(log, now, l, 0, 0)
			if d.Allowed && !exact {
				t.Fatalf("limits %+v: over-admission at +%v", l, off)
			}
			bucketed := reference(log, now, l, time.Second, time.Minute)
			if !d.Allowed && bucketed {
				t.Fatalf("limits %+v: refused at +%v beyond the documented bound", l, off)
			}
			if l.PerMinute <= ratelimit.DefaultExactMax && l.PerDay <= ratelimit.DefaultExactMax && d.Allowed != exact {
				t.Fatalf("limits %+v: exact window decided %v at +%v, reference %v", l, d.Allowed, off, exact)
			}
			if d.Allowed {
				log = append(log, now)
			} else {
				refused++
			}
		}
		t.Logf("limits %+v: %d admitted, %d refused", l, len(log), refused)
		if refused == 0 || len(log) == 0 {
			t.Fatalf("limits %+v: %d admitted, %d refused: the traffic tests nothing", l, len(log), refused)
		}
	}
}

// reference reports whether a request at now fits windows lengthened by
// extraMinute and extraDay, counting the admitted log (sorted by time).
func reference(log []time.Time, now time.Time, l apikey.Limits, extraMinute, extraDay time.Duration) bool {
	in := func(span time.Duration) int64 {
		from := now.Add(-span)
		i, _ := slices.BinarySearchFunc(log, from, func(at, from time.Time) int {
			if at.After(from) {
				return 1
			}
			return -1
		})
		return int64(len(log) - i)
	}
	return in(ratelimit.MinuteSpan+extraMinute)+1 <= l.PerMinute && in(ratelimit.DaySpan+extraDay)+1 <= l.PerDay
}

// testPeekCountsNothing: Peek reports the windows as they stand and what
// one more request would get, exact and bucketed, and never counts.
func testPeekCountsNothing(t *testing.T, newLimiter NewFunc) {
	for _, l := range []apikey.Limits{{PerMinute: 3, PerDay: 1000}, {PerMinute: 3, PerDay: 2000}, {PerMinute: 3}} {
		t.Run(fmt.Sprintf("%d/%d", l.PerMinute, l.PerDay), func(t *testing.T) {
			f := newFixture(t, newLimiter)
			peek := func(off time.Duration) ratelimit.Decision {
				t.Helper()
				f.clock.Set(Base.Add(off))
				d, err := f.lim.Peek(context.Background(), f.id, l)
				if err != nil {
					t.Fatalf("Peek at +%v: %v", off, err)
				}
				return d
			}
			if d := peek(0); !d.Allowed || d.Minute.Remaining != 3 || d.Minute.Reset != 0 || d.Minute.Limit != 3 || d.Day.Limit != l.PerDay {
				t.Fatalf("peek of an unused id: %+v", d)
			}
			f.fill(0, l, 2)
			for range 5 {
				d := peek(10 * time.Second)
				if !d.Allowed || d.Minute.Remaining != 1 || d.Minute.Reset != 50*time.Second {
					t.Fatalf("peek after 2: %+v", d)
				}
				if l.PerDay > 0 && d.Day.Remaining != l.PerDay-2 {
					t.Fatalf("peek after 2: day %+v", d.Day)
				}
			}
			f.want(10*time.Second, l, true)
			d := peek(20 * time.Second)
			if d.Allowed || !d.Minute.Refused || d.Minute.Remaining != 0 || d.RetryAfter() != 40*time.Second {
				t.Fatalf("peek of a full window: %+v", d)
			}
			f.want(20*time.Second, l, false)
			f.want(time.Minute, l, true) // the peeks took no room
		})
	}
}

// testAllowN: a call of n requests is admitted only if all n fit, counts
// n, and counts nothing when refused; its refusal says when n fit; a call
// costing more than a window fills an empty one; exact and bucketed
// windows alike.
func testAllowN(t *testing.T, newLimiter NewFunc) {
	for _, l := range []apikey.Limits{{PerMinute: 10}, {PerMinute: 2000}, {PerMinute: 10, PerDay: 15}, {PerDay: 3000}} {
		t.Run(fmt.Sprintf("%d/%d", l.PerMinute, l.PerDay), func(t *testing.T) {
			f := newFixture(t, newLimiter)
			ctx := context.Background()
			limit := l.PerMinute
			if limit == 0 || (l.PerDay > 0 && l.PerDay < limit) {
				limit = l.PerDay
			}
			allowN := func(off time.Duration, n int64, want bool) ratelimit.Decision {
				t.Helper()
				f.clock.Set(Base.Add(off))
				d, err := f.lim.AllowN(ctx, f.id, l, n)
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed != want {
					t.Fatalf("AllowN(%d) at +%v: allowed %v, want %v (%+v)", n, off, d.Allowed, want, d)
				}
				return d
			}
			first := limit * 4 / 10
			d := allowN(0, first, true)
			if w := d.Windows()[0]; w.Remaining != w.Limit-first {
				t.Errorf("after %d: remaining %d of %d", first, w.Remaining, w.Limit)
			}
			d = allowN(time.Second, limit-first+1, false) // one too many
			if d.RetryAfter() <= 0 {
				t.Errorf("a refused call of n without a Retry-After: %+v", d)
			}
			d = allowN(2*time.Second, limit-first, true) // exactly fills it: the refusal counted nothing
			for _, w := range d.Windows() {
				if w.Limit == limit && w.Remaining != 0 {
					t.Errorf("filled window: remaining %d", w.Remaining)
				}
			}
			allowN(3*time.Second, 1, false)

			g := newFixture(t, newLimiter)
			g.clock.Set(Base)
			d, err := g.lim.AllowN(ctx, g.id, l, 10*limit)
			if err != nil || !d.Allowed {
				t.Fatalf("a call costing more than an empty window: %+v %v", d, err)
			}
			g.clock.Set(Base.Add(time.Second))
			if d, _ := g.lim.Allow(ctx, g.id, l); d.Allowed {
				t.Errorf("a window a large call filled admitted one more")
			}
		})
	}
}

// testConcurrentAllowN: calls of n sent at once never over-fill a window.
func testConcurrentAllowN(t *testing.T, newLimiter NewFunc) {
	f := newFixture(t, newLimiter)
	f.clock.Set(Base)
	l := apikey.Limits{PerMinute: 100}
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := f.lim.AllowN(context.Background(), f.id, l, 7)
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				admitted.Add(7)
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n > 100 || n < 98 {
		t.Errorf("40 calls of 7 at once admitted %d requests in a window of 100, want 98 (14 calls)", n)
	}
}
