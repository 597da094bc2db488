package access

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// This file is the one refusal builder: every refusal of a call (the
// Guard's, and the image host's refusal of a client's misses) is made
// here, and every 429 the service answers is written by Refusal.Write or
// carries the status and headers Refusal.SetHeaders gives it (archtest
// holds the service to it).

// Refusal is a no to a call: the problem its caller gets, and the headers
// that go with it. Write answers it as problem JSON; a surface that draws
// its own answer (a page, an image, a tool's error) takes Status, Problem
// and RetryAfter, and sets SetHeaders' headers on its answer.
type Refusal struct {
	// Problem is the answer's body: its status, code and detail and, for a
	// 429, the members retryAfter and retryAfterMs, violatedPolicies when
	// the refusal names its windows, and dailyRemaining (0) for the day
	// window.
	Problem *problem.Problem
	// RetryAfter is how long until a call may be admitted, written as
	// Retry-After: set for every 429 and 503, zero for the others (a
	// refused key is not admitted by waiting).
	RetryAfter time.Duration
	// Windows are the windows whose rate-limit headers the refusal
	// carries: the key's when a key's limit refused it, the address's for
	// AdmitAddress; the zero Decision (no headers) for every other.
	Windows ratelimit.Decision
}

// Status is the status the refusal answers with.
func (f *Refusal) Status() int { return f.Problem.Status }

// Limited reports a refusal by a limit (429), as opposed to a key refused
// (401, 403) or a check that could not be made (503).
func (f *Refusal) Limited() bool { return f.Problem.Status == http.StatusTooManyRequests }

// RetryAfterSeconds is the Retry-After value in whole seconds, rounded up;
// 0 when the refusal has none.
func (f *Refusal) RetryAfterSeconds() int64 { return ratelimit.CeilSeconds(f.RetryAfter) }

// SetHeaders sets the headers that go with the refusal, whatever carries
// its body: the rate-limit headers of Windows, when it has any, and
// Retry-After when it has one.
func (f *Refusal) SetHeaders(h http.Header) {
	SetRateLimitHeaders(h, f.Windows)
	if f.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(f.RetryAfterSeconds(), 10))
	}
}

// Write answers the refusal as problem JSON with its headers: how every
// surface that answers in JSON answers a refusal.
func (f *Refusal) Write(w http.ResponseWriter, r *http.Request) {
	f.SetHeaders(w.Header())
	problem.Write(w, r, f.Problem)
}

// TooMany is the refusal of a call over a limit: 429 rate_limited with
// detail, waiting retry (at least a nanosecond: a 429 always says when to
// come back), and the windows that refused it named in violatedPolicies
// when there are any.
func TooMany(detail string, retry time.Duration, policies ...string) *Refusal {
	retry = max(retry, time.Nanosecond)
	p := problem.Of(problem.RateLimited, detail)
	p.Extra = map[string]any{
		"retryAfter":   ratelimit.CeilSeconds(retry),
		"retryAfterMs": ratelimit.CeilMillis(retry),
	}
	if len(policies) > 0 {
		p.Extra["violatedPolicies"] = policies
	}
	return &Refusal{Problem: p, RetryAfter: retry}
}

// rateLimited refuses a call whose key's windows are full (d). A refusal
// by the day window (alone or with the minute's) is daily_limit_exceeded,
// with dailyRemaining 0.
func rateLimited(d ratelimit.Decision) *Refusal {
	retry := d.RetryAfter()
	f := TooMany(fmt.Sprintf("This key may make %d requests per minute; retry in %d s.", d.Minute.Limit, ratelimit.CeilSeconds(retry)),
		retry, d.Violated()...)
	if d.Day.Refused {
		extra := f.Problem.Extra
		f.Problem = problem.Of(problem.DailyLimitExceeded,
			fmt.Sprintf("This key may make %d requests per day; retry in %d s.", d.Day.Limit, ratelimit.CeilSeconds(retry)))
		f.Problem.Extra = extra
		extra["dailyRemaining"] = 0
	}
	f.Windows = d
	return f
}

// usageRefused refuses a call of /api/usage whose key spent its usage
// budget (budget is the budget's decision; violated names its refused
// windows). The key's own windows (d) are untouched, so it is
// rate_limited whichever window refused, and its headers report d.
func usageRefused(budget ratelimit.Decision, violated []string, d ratelimit.Decision) *Refusal {
	retry := budget.RetryAfter()
	f := TooMany(fmt.Sprintf("/api/usage may be asked %d times per minute and %d per day per key, apart from the key's own limits; retry in %d s.",
		budget.Minute.Limit, budget.Day.Limit, ratelimit.CeilSeconds(retry)), retry, violated...)
	f.Windows = d
	return f
}

// tooManyFailures refuses a client IP with too many failed key checks. No
// rate-limit headers: the call is not authenticated.
func tooManyFailures(retry time.Duration) *Refusal {
	return TooMany(fmt.Sprintf("Too many failed API key checks from this address; retry in %d s.", ratelimit.CeilSeconds(retry)),
		retry, PolicyFailedChecks)
}

// addressLimited refuses a keyless call whose client IP's window is full.
func addressLimited(d ratelimit.Decision) *Refusal {
	retry := d.RetryAfter()
	f := TooMany(fmt.Sprintf("This address may make %d requests per minute here; retry in %d s.", d.Minute.Limit, ratelimit.CeilSeconds(retry)),
		retry, d.Violated()...)
	f.Windows = d
	return f
}

// authDetail says what to do about each failure of authentication.
var authDetail = map[string]string{
	problem.MissingAPIKey:    "Send your key in the X-API-Key header, as Authorization: Bearer <key>, or as the api_key query parameter.",
	problem.InvalidAPIKey:    "The API key is not valid. Check that it was copied whole.",
	problem.RevokedAPIKey:    "This API key has been revoked or has expired.",
	problem.SuspendedAPIKey:  "This API key is suspended. Contact support.",
	problem.OriginNotAllowed: "This API key may not be used from this web origin.",
	problem.Unavailable:      "Keys cannot be checked right now; retry shortly.",
}

// unavailableRetry is the Retry-After of a check that could not be made.
const unavailableRetry = 5 * time.Second

// authRefusal refuses a call whose authentication failed with code; any
// code but the five of authentication is the fail-closed 503, which says
// to retry in a few seconds.
func authRefusal(code string) *Refusal {
	d, ok := authDetail[code]
	if !ok || code == problem.Unavailable {
		return &Refusal{Problem: problem.Of(problem.Unavailable, authDetail[problem.Unavailable]), RetryAfter: unavailableRetry}
	}
	return &Refusal{Problem: problem.Of(code, d)}
}
