package access

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/problem"
)

// Titles the hosted service's clients compare against: exact strings.
const (
	titleRateLimited = "Rate limit exceeded"
	titleDailyLimit  = "Daily limit exceeded"
)

// PolicyFailedChecks names the per-IP limit of failed key checks in
// violatedPolicies and metrics.
const PolicyFailedChecks = "failed_key_checks"

// ceilSeconds rounds d up to whole seconds: a client told to wait must not
// come back early.
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

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
func SetRateLimitHeaders(h http.Header, d Decision) {
	ws := d.Windows()
	if len(ws) == 0 {
		return
	}
	// Built by hand and stored under canonical names: this runs on every
	// request, and fmt and Header.Set were most of the Guard's cost.
	policy := make([]byte, 0, 64)
	state := make([]byte, 0, 64)
	for i, w := range ws {
		if i > 0 {
			policy = append(policy, ", "...)
			state = append(state, ", "...)
		}
		policy = append(append(append(policy, '"'), w.Policy...), `";q=`...)
		policy = append(strconv.AppendInt(policy, w.Limit, 10), ";w="...)
		policy = strconv.AppendInt(policy, ceilSeconds(w.Span), 10)
		state = append(append(append(state, '"'), w.Policy...), `";r=`...)
		state = append(strconv.AppendInt(state, w.Remaining, 10), ";t="...)
		state = strconv.AppendInt(state, ceilSeconds(w.Reset), 10)
	}
	n := nearest(ws)
	h["Ratelimit-Policy"] = []string{string(policy)}
	h["Ratelimit"] = []string{string(state)}
	h["X-Ratelimit-Limit"] = []string{strconv.FormatInt(n.Limit, 10)}
	h["X-Ratelimit-Remaining"] = []string{strconv.FormatInt(n.Remaining, 10)}
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(ceilSeconds(time.Duration(d.At.UnixNano())+n.Reset), 10)}
}

// nearest is the window nearest to refusing: of the refused windows, the
// one with the longest wait; otherwise the one with the fewest requests
// left, the shorter window on a tie.
func nearest(ws []WindowState) WindowState {
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

// writeRateLimited answers 429 for a refused decision. A refusal by the
// day window (alone or with the minute's) is "Daily limit exceeded".
func writeRateLimited(w http.ResponseWriter, r *http.Request, d Decision) {
	retry := d.RetryAfter()
	violated := d.Violated()
	p := problem.New(http.StatusTooManyRequests, problem.RateLimited, titleRateLimited,
		fmt.Sprintf("This key may make %d requests per minute; retry in %d s.", d.Minute.Limit, ceilSeconds(retry)))
	p.Extra = map[string]any{
		"retryAfter":       ceilSeconds(retry),
		"retryAfterMs":     ceilMillis(retry),
		"violatedPolicies": violated,
	}
	if d.Day.Refused {
		p.Code, p.Title = problem.DailyLimitExceeded, titleDailyLimit
		p.Detail = fmt.Sprintf("This key may make %d requests per day; retry in %d s.", d.Day.Limit, ceilSeconds(retry))
		p.Extra["dailyRemaining"] = 0
	}
	w.Header().Set("Retry-After", strconv.FormatInt(ceilSeconds(retry), 10))
	problem.Write(w, r, p)
}

// writeTooManyFailures answers 429 to a client IP with too many failed key
// checks. No rate-limit headers: the request is not authenticated.
func writeTooManyFailures(w http.ResponseWriter, r *http.Request, retry time.Duration) {
	p := problem.New(http.StatusTooManyRequests, problem.RateLimited, titleRateLimited,
		fmt.Sprintf("Too many failed API key checks from this address; retry in %d s.", ceilSeconds(retry)))
	p.Extra = map[string]any{
		"retryAfter":       ceilSeconds(retry),
		"retryAfterMs":     ceilMillis(retry),
		"violatedPolicies": []string{PolicyFailedChecks},
	}
	w.Header().Set("Retry-After", strconv.FormatInt(ceilSeconds(retry), 10))
	problem.Write(w, r, p)
}

// authProblem is the answer of failed authentication with code.
func authProblem(code string) *problem.Problem {
	switch code {
	case problem.MissingAPIKey:
		return problem.New(http.StatusUnauthorized, code, "Missing API key",
			"Send your key in the X-API-Key header, as Authorization: Bearer <key>, or as the api_key query parameter.")
	case problem.InvalidAPIKey:
		return problem.New(http.StatusUnauthorized, code, "Invalid API key", "The API key is not valid. Check that it was copied whole.")
	case problem.RevokedAPIKey:
		return problem.New(http.StatusUnauthorized, code, "Revoked API key", "This API key has been revoked.")
	case problem.SuspendedAPIKey:
		return problem.New(http.StatusForbidden, code, "Suspended API key", "This API key is suspended. Contact support.")
	case problem.OriginNotAllowed:
		return problem.New(http.StatusForbidden, code, "Origin not allowed", "This API key may not be used from this web origin.")
	}
	return problem.New(http.StatusServiceUnavailable, problem.Unavailable, "Service unavailable", "Keys cannot be checked right now; retry shortly.")
}

func writeAuthProblem(w http.ResponseWriter, r *http.Request, code string) {
	p := authProblem(code)
	if p.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	problem.Write(w, r, p)
}
