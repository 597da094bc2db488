package storetest

import (
	"sync"
	"time"
)

// clock is a settable test clock, safe for concurrent use: the backends
// under test read now, the suites move it forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock returns a clock stopped at t.
func newClock(t time.Time) *clock { return &clock{t: t} }

// now returns the clock's time.
func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// advance moves the clock forward by d.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
