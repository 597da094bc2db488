package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// TestMemoryBoundedWhateverTheTier drives an enterprise key at a high rate
// for a day and checks what its windows hold.
func TestMemoryBoundedWhateverTheTier(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemLimiter(MemOptions{Now: func() time.Time { return now }})
	big := apikey.Limits{PerMinute: 5000, PerDay: 5_000_000}
	small := apikey.Limits{PerMinute: 60, PerDay: 1000}
	for i := 0; i < 200_000; i++ {
		now = now.Add(400 * time.Millisecond) // 150 per minute, for 22 hours
		m.Allow(context.Background(), "big", big)
		m.Allow(context.Background(), "small", small)
	}
	kw := m.shard("big").keys["big"]
	mb, ok1 := kw.minute.(*bucketCounter)
	db, ok2 := kw.day.(*bucketCounter)
	if !ok1 || !ok2 || len(mb.counts) != 61 || len(db.counts) != 1441 {
		t.Fatalf("big key counters: %T %T", kw.minute, kw.day)
	}
	if db.total <= 0 || db.total > big.PerDay {
		t.Fatalf("day total %d", db.total)
	}
	kw = m.shard("small").keys["small"]
	me, ok1 := kw.minute.(*exactCounter)
	de, ok2 := kw.day.(*exactCounter)
	if !ok1 || !ok2 || len(me.ts) > 60 || len(de.ts) > 1000 {
		t.Fatalf("small key counters: %T %T, buffers %d %d", kw.minute, kw.day, len(me.ts), len(de.ts))
	}
}

func TestSweepForgetsIdleKeys(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemLimiter(MemOptions{Now: func() time.Time { return now }})
	m.Allow(context.Background(), "day-key", apikey.Limits{PerMinute: 10, PerDay: 100})
	m.Allow(context.Background(), "ip", apikey.Limits{PerMinute: 10})
	m.Peek(context.Background(), "never-counted", apikey.Limits{PerMinute: 10})
	if m.Len() != 2 {
		t.Fatalf("Len = %d, want 2 (Peek stores nothing)", m.Len())
	}
	touchAll := func() {
		for i := 0; i < 1000; i++ { // reach every shard so each sweeps
			m.Peek(context.Background(), string(rune('a'+i%26))+string(rune('a'+i/26)), apikey.Limits{PerMinute: 1})
		}
	}
	now = now.Add(2 * time.Minute)
	touchAll()
	if m.Len() != 1 {
		t.Fatalf("after 2 min: Len = %d, want 1 (the minute-only key goes)", m.Len())
	}
	now = now.Add(25 * time.Hour)
	touchAll()
	if m.Len() != 0 {
		t.Fatalf("after a day: Len = %d, want 0", m.Len())
	}
}

func TestCancelUncounts(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemLimiter(MemOptions{Now: func() time.Time { return now }})
	for _, l := range []apikey.Limits{{PerMinute: 2, PerDay: 10}, {PerMinute: 2000, PerDay: 3000}} {
		id := "k" + time.Duration(l.PerMinute).String()
		d1, _ := m.Allow(context.Background(), id, l)
		now = now.Add(time.Millisecond)
		d2, _ := m.Allow(context.Background(), id, l)
		m.Cancel(id, d1.At)
		d3, _ := m.Allow(context.Background(), id, l)
		if !d3.Allowed || d3.Minute.Remaining != d2.Minute.Remaining {
			t.Fatalf("%+v: after cancel %+v, before %+v", l, d3.Minute, d2.Minute)
		}
	}
}

func TestFloorDiv(t *testing.T) {
	for _, tc := range [][3]int64{{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {0, 5, 0}, {-1, 60, -1}} {
		if got := floorDiv(tc[0], tc[1]); got != tc[2] {
			t.Errorf("floorDiv(%d, %d) = %d", tc[0], tc[1], got)
		}
	}
}
