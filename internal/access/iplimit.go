package access

import (
	"context"
	"net/http"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// AdmitAddress admits c, a keyless call (the site search, the developer
// portal's sign-in form), on its client IP's own window of perMinute calls
// a minute (an IPv6 client's is its prefix's: Config.IPv6Prefix), kept in the Guard's limiter (shared by replicas when it is
// Redis) under an id of its own per c.Endpoint; c.Key is not read. The
// Admission carries the window's decision for the rate-limit headers and
// meters nothing. A full window refuses with the API's 429 (rate_limited,
// Retry-After, retryAfter, retryAfterMs, violatedPolicies ["minute"]) and
// the window's headers. Like a key check it fails closed: a limiter that
// cannot decide refuses with 503. When ctx carries a LogInfo, the client
// IP is noted in it.
func (g *Guard) AdmitAddress(ctx context.Context, c Call, perMinute int64) (Admission, *Refusal) {
	if li := logInfoFrom(ctx); li != nil {
		li.ClientIP = c.ClientIP
	}
	d, err := g.limiter.Allow(ctx, "ip:"+c.Endpoint+":"+g.AddressKey(c.ClientIP), apikey.Limits{PerMinute: perMinute})
	if err != nil {
		g.log.Error("access: rate limiter failed", "err", err, "endpoint", c.Endpoint)
		return Admission{}, authRefusal(problem.Unavailable)
	}
	if !d.Allowed {
		for _, v := range d.Violated() {
			g.metrics.refusals.WithLabelValues(v).Inc()
		}
		return Admission{}, addressLimited(d)
	}
	return Admission{Decision: d, ClientIP: c.ClientIP}, nil
}

// AddressKey is the id the per-IP limits count the client address ip
// under: AddressKey with the Guard's Config.IPv6Prefix.
func (g *Guard) AddressKey(ip string) string { return AddressKey(ip, g.cfg.IPv6Prefix) }

// AddressCall is the Call of a keyless request to endpoint, for
// AdmitAddress: its client IP under the Guard's trusted proxies.
func (g *Guard) AddressCall(r *http.Request, endpoint string) Call {
	return Call{Endpoint: endpoint, ClientIP: g.ClientIP(r)}
}

// LimitPerIP limits h, a keyless endpoint named endpoint, to perMinute
// requests a minute per client IP: an HTTP adapter over AdmitAddress and
// the refusal builder. Answers carry the rate-limit headers of the IP's
// window; a refused request gets the refusal's problem JSON.
func (g *Guard) LimitPerIP(endpoint string, perMinute int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, f := g.AdmitAddress(r.Context(), g.AddressCall(r, endpoint), perMinute)
		if f != nil {
			f.Write(w, r)
			return
		}
		a.SetHeaders(w.Header())
		h.ServeHTTP(w, r)
	})
}

// FirstClick reports whether a buy-link click on perfumeID from clientIP
// is the first of its client address (AddressKey), perfume and the last 24
// hours, and so is to be counted: one id a day window of 1 in the Guard's
// limiter (shared by replicas on Redis). A limiter that cannot decide
// counts nothing: a click left out costs less than clicks inflated.
func (g *Guard) FirstClick(ctx context.Context, clientIP string, perfumeID int64) bool {
	id := "click:" + strconv.FormatInt(perfumeID, 10) + ":" + g.AddressKey(clientIP)
	d, err := g.limiter.Allow(ctx, id, apikey.Limits{PerDay: 1})
	if err != nil {
		g.log.Warn("access: rate limiter failed; a buy-link click is not counted", "err", err)
		return false
	}
	return d.Allowed
}
