package cpubudget

import (
	"context"
	"testing"
	"time"
)

// TestCPUBudget: the worker's jobs are followed
// by rests that keep it within its share of a core. The clock is the
// test's: sleeping moves it.
func TestCPUBudget(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var slept []time.Duration
	b := New(0.25, func() time.Time { return now }, func(_ context.Context, d time.Duration) {
		slept = append(slept, d)
		now = now.Add(d)
	})
	ctx := context.Background()
	b.Wait(ctx) // a fresh account: no wait
	if len(slept) != 0 {
		t.Fatalf("slept %v before the first job", slept)
	}
	// A job of one second: three seconds of rest at 25%.
	now = now.Add(time.Second)
	b.Spend(time.Second)
	b.Wait(ctx)
	if len(slept) != 1 || slept[0] != 3*time.Second {
		t.Fatalf("after a 1 s job slept %v, want [3s]", slept)
	}
	// Over many jobs the work stays within the budget.
	start, work := now, time.Duration(0)
	for range 100 {
		b.Wait(ctx)
		d := 700 * time.Millisecond
		now = now.Add(d)
		b.Spend(d)
		work += d
	}
	b.Wait(ctx)
	if share := work.Seconds() / now.Sub(start).Seconds(); share > 0.25+1e-9 {
		t.Errorf("work took %.3f of the time, want at most 0.25", share)
	}
	// A long idle spell buys at most one second of credit.
	now = now.Add(time.Hour)
	slept = nil
	b.Wait(ctx)
	now = now.Add(3 * time.Second)
	b.Spend(3 * time.Second)
	b.Wait(ctx)
	if len(slept) != 1 || slept[0] < 7*time.Second {
		t.Errorf("after an hour idle and a 3 s job slept %v, want at least 7s", slept)
	}
	// No budget: never waits.
	var none *Budget
	none.Spend(time.Hour)
	none.Wait(ctx)
}
