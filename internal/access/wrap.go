package access

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Wrap guards h, an /api handler metered under the name endpoint:
//
//  1. the key is read (X-API-Key, then Authorization: Bearer, then
//     ?api_key=) and checked: 401 missing, invalid, revoked or expired; 403
//     suspended or used from an origin it does not allow; 503 when the store
//     cannot be reached and the key is not cached (fail closed);
//  2. a missing or invalid key from a client IP with too many failed key
//     checks gets 429 instead of 401; a valid key from that IP is served
//     as from any other (one broken client behind a NAT must not lock out
//     its neighbours);
//  3. the key's windows admit the request or it gets 429;
//  4. h runs with the key in its context (KeyFrom), without api_key in its
//     URL, and the rate-limit headers set;
//  5. the request is metered once h has returned; it is noted for the
//     abuse signals (before h runs, or when refused with 429), and a signal
//     of a kind in AbuseConfig.AutoSuspend suspends the key (its next
//     request gets 403).
//
// CORS preflight must be answered before Wrap: it needs no key.
func (g *Guard) Wrap(endpoint string, h http.Handler) http.Handler { return g.wrap(endpoint, h, false) }

// WrapUsage guards h as Wrap does, but for a handler that reports on the
// key's own windows (/api/usage): step 3 counts the request against the
// key's usage budget (Config.UsageBudget; 429 with violatedPolicies
// usage_minute or usage_day when it is spent) and only peeks at the key's
// windows, which the rate-limit headers and Caller then show as they stand.
// So the report answers while the key is rate-limited and costs it nothing.
func (g *Guard) WrapUsage(endpoint string, h http.Handler) http.Handler {
	return g.wrap(endpoint, h, true)
}

// Authenticate guards h with steps 1 and 2 of Wrap only: a request whose
// key is missing, invalid, revoked, expired or suspended is refused as Wrap
// refuses it, before h reads anything; an admitted request counts against
// no window and is not metered. It is for an endpoint whose requests carry
// calls guarded one by one (POST /mcp: each tool call goes through Wrap).
func (g *Guard) Authenticate(endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, _, _, ok := g.admit(w, r, endpoint); ok {
			h.ServeHTTP(w, r)
		}
	})
}

func (g *Guard) wrap(endpoint string, h http.Handler, usageBudget bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ip, li, now, ok := g.admit(w, r, endpoint)
		if !ok {
			return
		}
		if usageBudget {
			g.serveUsage(w, r, li, endpoint, key, ip, now, h)
			return
		}
		g.serve(w, r, li, endpoint, key, ip, now, h)
	})
}

// admit runs steps 1 and 2 of Wrap: it returns the request's key, client
// IP, LogInfo and the time it was checked at (the Guard reads its clock
// once a request), or answers the refusal and returns false.
func (g *Guard) admit(w http.ResponseWriter, r *http.Request, endpoint string) (apikey.Key, string, *LogInfo, time.Time, bool) {
	now := g.now()
	ip := g.ClientIP(r)
	li := logInfoFrom(r.Context())
	if li != nil {
		li.ClientIP = ip
	}
	key, code, checked := g.authenticate(r, now)
	if li != nil {
		li.KeyPrefix = key.Prefix
	}
	if code == problem.MissingAPIKey || code == problem.InvalidAPIKey {
		// Only the failures are limited, never a valid key: the IP's
		// window is read only for them, off the path of every admitted
		// request. A failed check counts against it unless it is full.
		failures, _ := g.failures.Peek(r.Context(), ip, g.cfg.FailedChecks) // never fails
		if !failures.Allowed {
			g.metrics.refusals.WithLabelValues(PolicyFailedChecks).Inc()
			writeTooManyFailures(w, r, failures.RetryAfter())
			return key, ip, li, now, false
		}
		if checked {
			g.failedCheck(r.Context(), ip)
		}
	}
	if code != "" {
		g.metrics.authFailures.WithLabelValues(code).Inc()
		p := authProblem(code)
		if key.Prefix != "" {
			g.meter.Request(key.Prefix, endpoint, p.Status, now, 0)
		}
		writeAuthProblem(w, r, code)
		return key, ip, li, now, false
	}
	return key, ip, li, now, true
}

// ClientIP returns the request's client address as a string (see the
// ClientIP function), with the Guard's trusted proxies; "unknown" when the
// peer address cannot be read.
func (g *Guard) ClientIP(r *http.Request) string {
	a := ClientIP(r, g.cfg.TrustedProxies)
	if !a.IsValid() {
		return "unknown"
	}
	// Most often the client is the IPv4 peer: its address as the
	// connection spells it is the canonical text (ParseAddr refuses
	// leading zeros), and needs no new string.
	if i := strings.LastIndexByte(r.RemoteAddr, ':'); a.Is4() && i > 0 {
		if host := r.RemoteAddr[:i]; len(host) <= len("255.255.255.255") {
			if p, err := netip.ParseAddr(host); err == nil && p == a {
				return host
			}
		}
	}
	return a.String()
}

// authenticate returns the request's key, or the problem code refusing it
// (with the key when it is known, so the refusal can be metered) at now;
// checked reports a key that was presented and failed its check
// (malformed, or unknown to the store), which admit counts against the
// client IP.
func (g *Guard) authenticate(r *http.Request, now time.Time) (key apikey.Key, code string, checked bool) {
	secret, ok := credentials(r)
	if !ok {
		return apikey.Key{}, problem.MissingAPIKey, false
	}
	sum, ok := apikey.Hash(secret)
	if !ok {
		return apikey.Key{}, problem.InvalidAPIKey, true
	}
	// A key in the cache passed its checksum when it was cached; any
	// other is checked before the store is asked (a mistyped key never
	// reaches it).
	k, how, err, cached := g.cache.cached(sum, now)
	if !cached {
		if !apikey.ChecksumOK(secret) {
			return apikey.Key{}, problem.InvalidAPIKey, true
		}
		k, how, err = g.cache.get(r.Context(), sum, now, g.keys.KeyByHash)
	}
	g.metrics.cacheLookup(how)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		g.noteStoreOK()
		return apikey.Key{}, problem.InvalidAPIKey, true
	case err != nil:
		g.noteStore(err)
		return apikey.Key{}, problem.Unavailable, false
	case how == cacheMiss:
		g.noteStoreOK()
	}
	if k.Expired(now) {
		// Past its grace period a replaced key is as dead as a revoked
		// one. The cached copy carries ExpiresAt, so this holds from that
		// instant on, however long the entry stays cached.
		return k, problem.RevokedAPIKey, false
	}
	switch k.State {
	case apikey.Active:
	case apikey.Suspended:
		return k, problem.SuspendedAPIKey, false
	default: // revoked, or a state this code does not know: refuse
		return k, problem.RevokedAPIKey, false
	}
	if origin := headerValue(r.Header, "Origin"); origin != "" && !k.AllowsOrigin(origin) {
		return k, problem.OriginNotAllowed, false
	}
	return k, "", false
}

// failedCheck counts a failed key check against the client IP, and raises
// a signal when that fills the IP's window.
func (g *Guard) failedCheck(ctx context.Context, ip string) {
	d, _ := g.failures.Allow(ctx, ip, g.cfg.FailedChecks)
	if !d.Allowed || (d.Minute.Limit > 0 && d.Minute.Remaining == 0) || (d.Day.Limit > 0 && d.Day.Remaining == 0) {
		n, span := d.Minute.Limit, d.Minute.Span
		if d.Minute.Limit <= 0 {
			n, span = d.Day.Limit, d.Day.Span
		}
		if s, ok := g.abuse.failedBurst(ip, n, span, g.now()); ok {
			g.signal(ctx, apikey.Key{}, ip, s)
		}
	}
}

// credentials returns the key a request carries. The X-API-Key header wins
// over Authorization: Bearer, and both over the api_key query parameter.
func credentials(r *http.Request) (string, bool) {
	// The header map is read by canonical names ("X-Api-Key", not
	// "X-API-Key"): net/http canonicalizes the names it reads, and
	// Header.Get would check the name's spelling again on every request.
	if v := strings.TrimSpace(headerValue(r.Header, "X-Api-Key")); v != "" {
		return v, true
	}
	if v, ok := bearer(headerValue(r.Header, "Authorization")); ok {
		return v, true
	}
	if mayHaveKeyParam(r.URL.RawQuery) {
		if v := strings.TrimSpace(r.URL.Query().Get(QueryParam)); v != "" {
			return v, true
		}
	}
	return "", false
}

// headerValue is h.Get(name) for a name in canonical form.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// bearer reads "Bearer <token>" (the scheme is case-insensitive).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// serve limits an authenticated request and runs h when admitted; li is
// the request's LogInfo, nil when the outer middleware gave none.
func (g *Guard) serve(w http.ResponseWriter, r *http.Request, li *LogInfo, endpoint string, key apikey.Key, ip string, now time.Time, h http.Handler) {
	d, err := g.limiter.Allow(r.Context(), key.Prefix, g.Tiers().For(key))
	if err != nil {
		g.limiterFailed(w, r, key, err)
		return
	}
	SetRateLimitHeaders(w.Header(), d)
	if !d.Allowed {
		for _, p := range d.Violated() {
			g.metrics.refusals.WithLabelValues(p).Inc()
		}
		writeRateLimited(w, r, d)
		g.refused(r.Context(), key, endpoint, ip, now)
		return
	}
	g.run(w, r, li, endpoint, key, ip, d, now, h)
}

// serveUsage is serve for WrapUsage: the request is counted against the
// key's usage budget, under an id of its own, and the key's windows are
// peeked at.
func (g *Guard) serveUsage(w http.ResponseWriter, r *http.Request, li *LogInfo, endpoint string, key apikey.Key, ip string, now time.Time, h http.Handler) {
	budget, err := g.limiter.Allow(r.Context(), usageBudgetPrefix+key.Prefix, g.cfg.UsageBudget)
	var d ratelimit.Decision
	if err == nil {
		d, err = g.Peek(r.Context(), key)
	}
	if err != nil {
		g.limiterFailed(w, r, key, err)
		return
	}
	SetRateLimitHeaders(w.Header(), d)
	if !budget.Allowed {
		violated := usagePolicies(budget.Violated())
		for _, p := range violated {
			g.metrics.refusals.WithLabelValues(p).Inc()
		}
		writeUsageRefused(w, r, budget, violated)
		g.refused(r.Context(), key, endpoint, ip, now)
		return
	}
	g.run(w, r, li, endpoint, key, ip, d, now, h)
}

// Peek reports key's windows as they stand under the limits in force,
// counting nothing: what is left now, as /api/usage and the developer
// portal show it.
func (g *Guard) Peek(ctx context.Context, key apikey.Key) (ratelimit.Decision, error) {
	return g.limiter.Peek(ctx, key.Prefix, g.Tiers().For(key))
}

// usageBudgetPrefix starts the limiter id of a key's usage budget; no key
// prefix starts with it.
const usageBudgetPrefix = "usage:"

// usagePolicies names the refused windows of a usage budget.
func usagePolicies(windows []string) []string {
	out := make([]string, len(windows))
	for i, w := range windows {
		out[i] = PolicyUsageMinute
		if w == ratelimit.PolicyDay {
			out[i] = PolicyUsageDay
		}
	}
	return out
}

// limiterFailed answers 503 when the limiter cannot decide.
func (g *Guard) limiterFailed(w http.ResponseWriter, r *http.Request, key apikey.Key, err error) {
	g.log.Error("access: rate limiter failed", "err", err, "key", key.Prefix)
	g.metrics.authFailures.WithLabelValues(problem.Unavailable).Inc()
	writeAuthProblem(w, r, problem.Unavailable)
}

// refused meters a request of key refused by a limit at now, and notes it
// for the abuse signals.
func (g *Guard) refused(ctx context.Context, key apikey.Key, endpoint, ip string, now time.Time) {
	g.meter.Request(key.Prefix, endpoint, http.StatusTooManyRequests, now, 0)
	if s, ok := g.abuse.refused(key.Prefix, ip, now); ok {
		g.signal(ctx, key, ip, s)
	}
}

// run serves an admitted request: h runs with the key and the decision d
// in its context, without api_key in its URL, and is metered.
func (g *Guard) run(w http.ResponseWriter, r *http.Request, li *LogInfo, endpoint string, key apikey.Key, ip string, d ratelimit.Decision, now time.Time, h http.Handler) {
	if s, ok := g.abuse.seen(key.Prefix, ip, now); ok {
		g.signal(r.Context(), key, ip, s)
	}
	if s, ok := g.walks.note(endpoint, key.Prefix, ip, r, now); ok {
		g.signal(r.Context(), key, ip, s)
	}
	// The handler learns the key and decision through the LogInfo the
	// outer middleware put in the context, when there is one: no second
	// copy of the request.
	r2 := r
	if li != nil {
		li.info, li.passed = requestInfo{key: key, decision: d, clientIP: ip}, true
	} else {
		r2 = r.WithContext(withInfo(r.Context(), &requestInfo{key: key, decision: d, clientIP: ip}))
	}
	if mayHaveKeyParam(r.URL.RawQuery) {
		if r2 == r {
			r2 = r.WithContext(r.Context()) // a shallow copy whose URL can change
		}
		u := *r.URL
		u.RawQuery = stripKeyParam(u.RawQuery)
		r2.URL = &u
		r2.RequestURI = u.RequestURI()
	}
	rec, ok := w.(StatusRecorder)
	if !ok {
		rec = &statusWriter{ResponseWriter: w}
	}
	defer func() {
		if p := recover(); p != nil {
			g.meter.Request(key.Prefix, endpoint, http.StatusInternalServerError, g.now(), g.now().Sub(now))
			panic(p)
		}
		status := rec.Status()
		if status == 0 { // nothing written: net/http answers 200
			status = http.StatusOK
		}
		g.meter.Request(key.Prefix, endpoint, status, now, g.now().Sub(now))
	}()
	h.ServeHTTP(rec, r2)
}

// StatusRecorder is a ResponseWriter that knows the status it answered
// with (0 before it answered). The Guard meters a request by the status of
// its writer when the writer is one, and wraps it in its own otherwise.
type StatusRecorder interface {
	http.ResponseWriter
	Status() int
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush passes flushes through for streaming handlers.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Status() int { return s.status }
