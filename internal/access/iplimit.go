package access

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// LimitPerIP limits h, a keyless endpoint named endpoint (the site search),
// to perMinute requests a minute per client IP, in the Guard's limiter
// (shared by replicas when it is Redis) under an id of its own per
// endpoint. Answers carry the rate-limit headers of the IP's window, and a
// refused request gets the API's 429 (rate_limited, Retry-After,
// retryAfter, retryAfterMs, violatedPolicies ["minute"]). Like a key check,
// it fails closed: a limiter that cannot decide answers 503.
func (g *Guard) LimitPerIP(endpoint string, perMinute int64, h http.Handler) http.Handler {
	limits := apikey.Limits{PerMinute: perMinute}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := g.ClientIP(r)
		if li := logInfoFrom(r.Context()); li != nil {
			li.ClientIP = ip
		}
		d, err := g.limiter.Allow(r.Context(), "ip:"+endpoint+":"+ip, limits)
		if err != nil {
			g.log.Error("access: rate limiter failed", "err", err, "endpoint", endpoint)
			writeAuthProblem(w, r, problem.Unavailable)
			return
		}
		SetRateLimitHeaders(w.Header(), d)
		if !d.Allowed {
			for _, p := range d.Violated() {
				g.metrics.refusals.WithLabelValues(p).Inc()
			}
			writeIPLimited(w, r, d)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// writeIPLimited answers 429 for a client IP whose window is full: the
// body and headers of the API's rate_limited.
func writeIPLimited(w http.ResponseWriter, r *http.Request, d ratelimit.Decision) {
	retry := d.RetryAfter()
	p := problem.Of(problem.RateLimited,
		fmt.Sprintf("This address may make %d requests per minute here; retry in %d s.", d.Minute.Limit, ratelimit.CeilSeconds(retry)))
	p.Extra = map[string]any{
		"retryAfter":       ratelimit.CeilSeconds(retry),
		"retryAfterMs":     ratelimit.CeilMillis(retry),
		"violatedPolicies": d.Violated(),
	}
	w.Header().Set("Retry-After", strconv.FormatInt(ratelimit.CeilSeconds(retry), 10))
	problem.Write(w, r, p)
}
