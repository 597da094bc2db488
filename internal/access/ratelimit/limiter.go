// Package ratelimit decides whether a key's (or a client IP's) next
// request fits its sliding windows: the Limiter contract every backend
// meets, the Decision it answers with, and the in-process backend
// (MemLimiter). redislimit shares the windows between replicas through
// Redis; limitertest is the contract suite both pass.
//
// Each key has a minute and a day window that slide: a request is admitted
// only if, counting it, no trailing 60 s and no trailing 24 h holds more
// admitted requests than the key's limits; refused requests are not
// counted. A window whose limit is at most DefaultExactMax (1024) keeps
// the exact timestamps of its newest requests and decides exactly. A
// larger one keeps one counter per bucket (1 s for the minute, 1 min for
// the day) and counts the bucket holding the window's start in full, so it
// never over-admits and under-admits at most as if the window were one
// bucket longer (61 s, 24 h 1 min). Memory per key is thus at most about
// 16 KiB whatever the tier, and keys idle for a day are forgotten.
package ratelimit

import (
	"context"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// Window policies, as named in the RateLimit headers and violatedPolicies.
const (
	PolicyMinute = "minute"
	PolicyDay    = "day"
)

// The windows and the bucket widths used when a window is counted in
// buckets (see window.go): the minute window in 1 s buckets, the day window
// in 1 min buckets.
const (
	MinuteSpan   = time.Minute
	DaySpan      = 24 * time.Hour
	MinuteBucket = time.Second
	DayBucket    = time.Minute
)

// DefaultExactMax is the largest window limit counted with exact
// timestamps; larger limits are counted in buckets. 1024 timestamps are
// 8 KiB, about what the day window's 1441 bucket counters take.
const DefaultExactMax = 1024

// Limiter decides, for each request of a key, whether its windows admit it.
//
// The contract, met by every backend: a request is admitted only if,
// counting it, no trailing 60 s and no trailing 24 h holds more admitted
// requests of that id than l allows; a refused request is not counted.
// Windows of at most DefaultExactMax requests are exact. Larger ones count
// whole buckets that overlap the window's start, so they admit as if the
// window were up to one bucket longer (61 s, 24 h 1 min): never more than the
// limit, at worst the requests of one bucket fewer. A limit of 0 means the
// window does not apply.
//
// AllowN is Allow for a call that counts as n requests (a large page of
// the change feed): it is admitted only if all n fit every window, and
// then counts n; a refused call counts nothing. A window counts at most
// its limit of them (n capped), so a call costing more than a whole
// window is admitted into an empty one. Allow is AllowN with n = 1; n
// below 1 counts as 1.
//
// Peek reports what Allow would decide for one more request of id, with
// each window's Remaining as it stands, and counts nothing: for answers
// that report on a key's windows without spending them (/api/usage).
type Limiter interface {
	Allow(ctx context.Context, id string, l apikey.Limits) (Decision, error)
	AllowN(ctx context.Context, id string, l apikey.Limits, n int64) (Decision, error)
	Peek(ctx context.Context, id string, l apikey.Limits) (Decision, error)
}

// WindowNeed is how many of n requests a window of limit counts (n capped
// at the limit, at least 1), as every backend counts them.
func WindowNeed(n, limit int64) int64 {
	return max(min(n, limit), 1)
}

// Status describes the limiter backend for /healthz and /metrics.
type Status struct {
	// Backend is "memory" or "redis".
	Backend string `json:"backend"`
	// Degraded is true while a shared backend cannot be reached and the
	// in-process limiter stands in for it.
	Degraded bool `json:"degraded"`
	// Since is when the current state began (zero for the memory backend).
	Since time.Time `json:"since,omitzero"`
	// LastError is the error that degraded the backend.
	LastError string `json:"lastError,omitempty"`
}

// StatusReporter is a limiter that can describe its backend.
type StatusReporter interface {
	Status() Status
}

// WindowState is one window of a decision, as the headers report it.
type WindowState struct {
	Policy string
	Limit  int64
	Span   time.Duration
	// Remaining is how many more requests the window admits now.
	Remaining int64
	// Reset is the time until the oldest request counted in the window
	// leaves it (0 when it counts none); for a refused window it equals
	// RetryAfter.
	Reset time.Duration
	// Refused reports that this window refused the request; RetryAfter is
	// then the time until it has room for one more.
	Refused    bool
	RetryAfter time.Duration
}

// Decision is a limiter's answer for one request.
type Decision struct {
	Allowed bool
	// At is the limiter's clock when it decided (Redis's clock for Redis).
	At          time.Time
	Minute, Day WindowState
}

// Windows returns the windows that apply, minute first.
func (d Decision) Windows() []WindowState {
	ws, n := d.WindowArray()
	return ws[:n:n]
}

// WindowArray is Windows without an allocation, for the hot path: the
// first n of ws apply.
func (d Decision) WindowArray() (ws [2]WindowState, n int) {
	for _, w := range [...]WindowState{d.Minute, d.Day} {
		if w.Limit > 0 {
			ws[n] = w
			n++
		}
	}
	return ws, n
}

// RetryAfter is the time until a refused request would be admitted: the
// longest wait of the windows that refused it.
func (d Decision) RetryAfter() time.Duration {
	var r time.Duration
	for _, w := range d.Windows() {
		if w.Refused && w.RetryAfter > r {
			r = w.RetryAfter
		}
	}
	return r
}

// Violated names the windows that refused the request.
func (d Decision) Violated() []string {
	var out []string
	for _, w := range d.Windows() {
		if w.Refused {
			out = append(out, w.Policy)
		}
	}
	return out
}

// WindowCount is what a backend knows of one window after deciding: the
// raw material of a WindowState.
type WindowCount struct {
	Limit int64
	// Used counts the admitted requests in the window, this one included
	// when it was admitted.
	Used int64
	// OldestExpiry is when the oldest counted request leaves the window.
	OldestExpiry time.Time
	// Refused reports that this window had no room; FreeAt is then when it
	// has room for one more.
	Refused bool
	FreeAt  time.Time
}

// NewDecision builds a Decision from the two windows' counts, so that every
// backend reports the same numbers the same way.
func NewDecision(now time.Time, allowed bool, minute, day WindowCount) Decision {
	return Decision{
		Allowed: allowed,
		At:      now,
		Minute:  newWindowState(PolicyMinute, MinuteSpan, now, minute),
		Day:     newWindowState(PolicyDay, DaySpan, now, day),
	}
}

func newWindowState(policy string, span time.Duration, now time.Time, c WindowCount) WindowState {
	w := WindowState{Policy: policy, Limit: c.Limit, Span: span}
	if c.Limit <= 0 {
		return w
	}
	if c.Refused {
		w.Refused = true
		w.RetryAfter = max(c.FreeAt.Sub(now), time.Nanosecond)
		w.Reset = w.RetryAfter
		return w
	}
	w.Remaining = max(c.Limit-c.Used, 0)
	if c.Used > 0 && c.OldestExpiry.After(now) {
		w.Reset = c.OldestExpiry.Sub(now)
	}
	return w
}

// CeilSeconds rounds d up to whole seconds: a client told to wait must not
// come back early.
func CeilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// CeilMillis rounds d up to whole milliseconds.
func CeilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
