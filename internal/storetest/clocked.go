package storetest

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/testclock"
)

// clocked is one test of a suite: a store of type S and the clock it
// reads.
type clocked[S any] struct {
	name string
	fn   func(t *testing.T, s S, c *testclock.Clock)
}

// runClocked runs each test as a subtest on a fresh store that open makes
// reading a clock at the suites' start.
func runClocked[S any](t *testing.T, tests []clocked[S], open func(t *testing.T, now func() time.Time) S) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := suiteClock()
			tc.fn(t, open(t, c.Now), c)
		})
	}
}

// suiteClock is a clock at the moment the suites start at.
func suiteClock() *testclock.Clock {
	return testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}
