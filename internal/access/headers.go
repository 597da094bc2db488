package access

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
)

// PolicyFailedChecks names the per-IP limit of failed key checks in
// violatedPolicies and metrics.
const PolicyFailedChecks = "failed_key_checks"

// PolicyUsageMinute and PolicyUsageDay name the windows of a key's budget
// for /api/usage (Config.UsageBudget) in violatedPolicies and metrics.
const (
	PolicyUsageMinute = "usage_minute"
	PolicyUsageDay    = "usage_day"
)

// SetRateLimitHeaders writes the IETF draft headers and the legacy
// X-RateLimit-* ones for d:
//
//	RateLimit-Policy: "minute";q=60;w=60, "day";q=1000;w=86400
//	RateLimit: "minute";r=17;t=23, "day";r=912;t=40000
//	X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset
//
// t is the seconds until the oldest request counted in the window leaves it
// (for a refused window: until it has room). The X- headers describe the
// window nearest to refusing, with Reset in Unix seconds.
//
// This runs on every request, so it is built by hand: the policy, which
// changes only with the limits, is kept per set of limits; the four other
// values are written into one string and one array of values, and stored
// under their canonical names (Header.Set would canonicalise them again).
func SetRateLimitHeaders(h http.Header, d ratelimit.Decision) {
	ws, n := d.WindowArray()
	if n == 0 {
		return
	}
	var buf [192]byte
	b := buf[:0]
	var end [4]int
	for i, w := range ws[:n] {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(append(append(b, '"'), w.Policy...), `";r=`...)
		b = append(strconv.AppendInt(b, w.Remaining, 10), ";t="...)
		b = strconv.AppendInt(b, ratelimit.CeilSeconds(w.Reset), 10)
	}
	end[0] = len(b)
	near := nearest(ws[:n])
	b = strconv.AppendInt(b, near.Limit, 10)
	end[1] = len(b)
	b = strconv.AppendInt(b, near.Remaining, 10)
	end[2] = len(b)
	b = strconv.AppendInt(b, ratelimit.CeilSeconds(time.Duration(d.At.UnixNano())+near.Reset), 10)
	end[3] = len(b)
	all := string(b)
	v := new([4]string)
	v[0], v[1], v[2], v[3] = all[:end[0]], all[end[0]:end[1]], all[end[1]:end[2]], all[end[2]:end[3]]
	h["Ratelimit-Policy"] = policyValue(ws[:n])
	h["Ratelimit"] = v[0:1:1]
	h["X-Ratelimit-Limit"] = v[1:2:2]
	h["X-Ratelimit-Remaining"] = v[2:3:3]
	h["X-Ratelimit-Reset"] = v[3:4:4]
}

// policies keeps the RateLimit-Policy value of each set of limits (there is
// one per tier and per key with limits of its own), up to maxPolicies
// sets; the values are shared by every answer and never modified.
var (
	policies    sync.Map // [2]policyLimit → []string
	policyCount atomic.Int64
)

const maxPolicies = 4096

type policyLimit struct {
	limit int64
	span  time.Duration
}

func policyValue(ws []ratelimit.WindowState) []string {
	var k [2]policyLimit
	for i, w := range ws {
		k[i] = policyLimit{w.Limit, w.Span}
	}
	if v, ok := policies.Load(k); ok {
		return v.([]string)
	}
	var b []byte
	for i, w := range ws {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(append(append(b, '"'), w.Policy...), `";q=`...)
		b = append(strconv.AppendInt(b, w.Limit, 10), ";w="...)
		b = strconv.AppendInt(b, ratelimit.CeilSeconds(w.Span), 10)
	}
	v := []string{string(b)}
	if policyCount.Load() < maxPolicies {
		if _, loaded := policies.LoadOrStore(k, v); !loaded {
			policyCount.Add(1)
		}
	}
	return v
}

// nearest is the window nearest to refusing: of the refused windows, the
// one with the longest wait; otherwise the one with the fewest requests
// left, the shorter window on a tie.
func nearest(ws []ratelimit.WindowState) ratelimit.WindowState {
	best := ws[0]
	for _, w := range ws[1:] {
		switch {
		case w.Refused != best.Refused:
			if w.Refused {
				best = w
			}
		case w.Refused:
			if w.RetryAfter > best.RetryAfter {
				best = w
			}
		case w.Remaining < best.Remaining:
			best = w
		}
	}
	return best
}
