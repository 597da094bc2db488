// Package cpubudget keeps background work (background removal, the
// index's neighbour lists) within a share of one core.
package cpubudget

import (
	"context"
	"sync"
	"time"
)

// Budget keeps background work within a share of one core: work
// earns rate seconds per second, every job spends the time it took (wall
// time, which is at least the CPU it used, and more when the API keeps the
// cores busy: then the work backs off further), and a job starts only
// when the account is not in debt. A one-second job at a budget of 25%
// is thus followed by three seconds of rest. The account holds at most
// one second of credit, so a long idle spell buys no burst. Shared by the
// workers of one process, it bounds them together.
//
// Go gives no reliable way to lower the OS priority of goroutines (nice
// applies to threads, which the runtime shares between goroutines), so
// this budget is what makes the worker "low priority"; a process of its
// own (fragrance images process) can also be run under nice. A nil
// *Budget is no limit.
type Budget struct {
	mu     sync.Mutex
	rate   float64 // seconds of work per second; 0: no limit
	credit float64 // seconds; at most maxCredit
	at     time.Time
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration)
}

const maxCredit = 1.0

// New is a budget of rate seconds of work per second (0.25: a quarter of
// a core; 0: no limit), on the given clock; sleep rests until ctx ends.
func New(rate float64, now func() time.Time, sleep func(context.Context, time.Duration)) *Budget {
	return &Budget{rate: rate, now: now, sleep: sleep, at: now()}
}

// settle brings the account up to now; the caller holds mu.
func (b *Budget) settle() time.Time {
	now := b.now()
	b.credit = min(maxCredit, b.credit+now.Sub(b.at).Seconds()*b.rate)
	b.at = now
	return now
}

// Wait returns once the account is out of debt, or when ctx ends.
func (b *Budget) Wait(ctx context.Context) {
	if b == nil || b.rate <= 0 {
		return
	}
	for ctx.Err() == nil {
		b.mu.Lock()
		b.settle()
		rest := time.Duration(-b.credit / b.rate * float64(time.Second))
		b.mu.Unlock()
		if rest < time.Millisecond { // out of debt, rounding aside
			return
		}
		b.sleep(ctx, rest)
	}
}

// Spend charges work of duration d.
func (b *Budget) Spend(d time.Duration) {
	if b == nil || b.rate <= 0 {
		return
	}
	b.mu.Lock()
	b.settle()
	b.credit -= d.Seconds()
	b.mu.Unlock()
}

// Sleep sleeps for d or until ctx ends: the sleep of a budget on the real
// clock.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
