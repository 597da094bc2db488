package images

import (
	"context"
	"testing"
	"time"
)

// TestCPUBudget is finding 4 of issue 14: the worker's jobs are followed
// by rests that keep it within its share of a core. The clock is the
// test's: sleeping moves it.
func TestCPUBudget(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var slept []time.Duration
	b := newCPUBudget(0.25, func() time.Time { return now }, func(_ context.Context, d time.Duration) {
		slept = append(slept, d)
		now = now.Add(d)
	})
	ctx := context.Background()
	b.wait(ctx) // a fresh account: no wait
	if len(slept) != 0 {
		t.Fatalf("slept %v before the first job", slept)
	}
	// A job of one second: three seconds of rest at 25%.
	now = now.Add(time.Second)
	b.spend(time.Second)
	b.wait(ctx)
	if len(slept) != 1 || slept[0] != 3*time.Second {
		t.Fatalf("after a 1 s job slept %v, want [3s]", slept)
	}
	// Over many jobs the work stays within the budget.
	start, work := now, time.Duration(0)
	for range 100 {
		b.wait(ctx)
		d := 700 * time.Millisecond
		now = now.Add(d)
		b.spend(d)
		work += d
	}
	b.wait(ctx)
	if share := work.Seconds() / now.Sub(start).Seconds(); share > 0.25+1e-9 {
		t.Errorf("work took %.3f of the time, want at most 0.25", share)
	}
	// A long idle spell buys at most one second of credit.
	now = now.Add(time.Hour)
	slept = nil
	b.wait(ctx)
	now = now.Add(3 * time.Second)
	b.spend(3 * time.Second)
	b.wait(ctx)
	if len(slept) != 1 || slept[0] < 7*time.Second {
		t.Errorf("after an hour idle and a 3 s job slept %v, want at least 7s", slept)
	}
	// No budget: never waits.
	var none *cpuBudget
	none.spend(time.Hour)
	none.wait(ctx)
}
