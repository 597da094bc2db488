package access

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Pass is a key that passed its check (Check): the key, the client IP it
// came from, and when. AdmitPass admits the calls a checked request
// carries without checking the key again.
type Pass struct {
	key apikey.Key
	ip  string
	at  time.Time
	li  *LogInfo // of the request checked, nil when none
}

// Key is the key that passed.
func (p Pass) Key() apikey.Key { return p.key }

// Admission is the Guard's yes to a call: the key admitted, the decision
// whose rate-limit headers its answer carries, and Done, which reports
// the call's outcome. Admit, AdmitUsage, AdmitPass and AdmitAddress make
// them.
type Admission struct {
	// Key is the key admitted; the zero Key for a keyless call
	// (AdmitAddress).
	Key apikey.Key
	// Decision is the decision of the windows the answer reports in its
	// rate-limit headers: the key's (peeked at for AdmitUsage), or the
	// client IP's for AdmitAddress.
	Decision ratelimit.Decision
	// ClientIP is the client address the Guard admitted the call from.
	ClientIP string

	g        *Guard // nil: Done meters nothing
	endpoint string
	at       time.Time
	li       *LogInfo
}

// SetHeaders sets the rate-limit headers of the admission's decision.
func (a *Admission) SetHeaders(h http.Header) { SetRateLimitHeaders(h, a.Decision) }

// Done reports the outcome of the admitted call once it is answered: its
// status (0 counts as 200: nothing written is net/http's 200), metered
// under the call's endpoint with the time since it was admitted by the
// Guard's clock. Call it once per admission. A keyless admission
// (AdmitAddress) meters nothing.
func (a *Admission) Done(status int) {
	if a.g == nil {
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	a.g.meter.Request(a.Key.Prefix, a.endpoint, status, a.at, a.g.now().Sub(a.at))
}

// Check checks the key of c, the first steps of every keyed admission, and
// returns its Pass or the refusal:
//
//   - a missing, malformed or unknown key is refused 401 (missing_api_key,
//     invalid_api_key), and a malformed or unknown one counts against the
//     client IP's failed checks; once that window is full, such calls get
//     429 (failed_key_checks) until it has room, while a valid key from the
//     same IP is checked as from any other;
//   - a revoked or expired key is refused 401, a suspended one 403, a key
//     used from an Origin it does not allow 403 (origin_not_allowed), and
//     any key 503 when the store cannot be reached and the key is not
//     cached (fail closed); these refusals of a known key are metered
//     under c.Endpoint.
//
// A Pass counts against no window and is not metered. When ctx carries a
// LogInfo (LogInfoKey), Check notes the client IP and key prefix in it.
func (g *Guard) Check(ctx context.Context, c Call) (Pass, *Refusal) {
	var p Pass
	if f := g.check(ctx, &c, g.now(), &p); f != nil {
		return Pass{}, f
	}
	return p, nil
}

// check is Check at now (the Guard reads its clock once a call), filling
// p in place: the hot path copies no key record it need not.
func (g *Guard) check(ctx context.Context, c *Call, now time.Time, p *Pass) *Refusal {
	li := logInfoFrom(ctx)
	if li != nil {
		li.ClientIP = c.ClientIP
	}
	key := &p.key
	code, checked := g.authenticate(ctx, c, now, key)
	if li != nil {
		li.KeyPrefix = key.Prefix
	}
	if code == problem.MissingAPIKey || code == problem.InvalidAPIKey {
		// Only the failures are limited, never a valid key: the IP's
		// window is read only for them, off the path of every admitted
		// call. A failed check counts against it unless it is full.
		failures, _ := g.failures.Peek(ctx, g.AddressKey(c.ClientIP), g.cfg.FailedChecks) // never fails
		if !failures.Allowed {
			g.metrics.refusals.WithLabelValues(PolicyFailedChecks).Inc()
			return tooManyFailures(failures.RetryAfter())
		}
		if checked {
			g.failedCheck(ctx, c.ClientIP)
		}
	}
	if code != "" {
		g.metrics.authFailures.WithLabelValues(code).Inc()
		f := authRefusal(code)
		if key.Prefix != "" {
			g.meter.Request(key.Prefix, c.Endpoint, f.Status(), now, 0)
		}
		return f
	}
	p.ip, p.at, p.li = c.ClientIP, now, li
	return nil
}

// Admit checks the key of c (Check) and counts c against the key's
// windows: a call they refuse gets 429 (rate_limited, or
// daily_limit_exceeded for the day window) with the windows' rate-limit
// headers, and is metered and noted for the abuse signals; a limiter that
// cannot decide refuses with 503. An admitted call is noted for the abuse
// signals and the scraping walks (a signal of a kind in
// AbuseConfig.AutoSuspend suspends its key: the key's next call gets 403),
// and is metered when its Admission is Done.
func (g *Guard) Admit(ctx context.Context, c Call) (Admission, *Refusal) {
	var a Admission
	if f := g.admit(ctx, &c, &a); f != nil {
		return Admission{}, f
	}
	return a, nil
}

// admit is Admit filling a in place, as Wrap calls it.
func (g *Guard) admit(ctx context.Context, c *Call, a *Admission) *Refusal {
	var p Pass
	if f := g.check(ctx, c, g.now(), &p); f != nil {
		return f
	}
	return g.admitKey(ctx, &p, c, a)
}

// AdmitPass is Admit for a call of a key that already passed Check, such
// as each tool call of an MCP request: the call to endpoint is counted
// against the key's windows, noted and metered as Admit does, without the
// key being checked again.
func (g *Guard) AdmitPass(ctx context.Context, p Pass, endpoint string) (Admission, *Refusal) {
	p.at, p.li = g.now(), nil // a call of its own, not the checked request
	var a Admission
	if f := g.admitKey(ctx, &p, &Call{Endpoint: endpoint, ClientIP: p.ip}, &a); f != nil {
		return Admission{}, f
	}
	return a, nil
}

// AdmitUsage is Admit for a call that reports on the key's own windows
// (/api/usage): it is counted against the key's usage budget
// (Config.UsageBudget; 429 with violatedPolicies usage_minute or usage_day
// when it is spent) and only peeks at the key's windows, which the
// Admission's Decision then shows as they stand. So the report answers
// while the key is rate-limited, and costs it nothing.
func (g *Guard) AdmitUsage(ctx context.Context, c Call) (Admission, *Refusal) {
	var a Admission
	if f := g.admitUsage(ctx, &c, &a); f != nil {
		return Admission{}, f
	}
	return a, nil
}

// admitUsage is AdmitUsage filling a in place, as WrapUsage calls it.
func (g *Guard) admitUsage(ctx context.Context, c *Call, a *Admission) *Refusal {
	var p Pass
	if f := g.check(ctx, c, g.now(), &p); f != nil {
		return f
	}
	budget, err := g.limiter.Allow(ctx, usageBudgetPrefix+p.key.Prefix, g.cfg.UsageBudget)
	var d ratelimit.Decision
	if err == nil {
		d, err = g.Peek(ctx, p.key)
	}
	if err != nil {
		return g.limiterFailed(p.key, err)
	}
	if !budget.Allowed {
		violated := usagePolicies(budget.Violated())
		for _, v := range violated {
			g.metrics.refusals.WithLabelValues(v).Inc()
		}
		g.refused(ctx, &p, c.Endpoint)
		return usageRefused(budget, violated, d)
	}
	g.admitted(ctx, &p, c, &d, a)
	return nil
}

// admitKey counts c, a call of p's key, against the key's windows, and
// fills a when they admit it.
func (g *Guard) admitKey(ctx context.Context, p *Pass, c *Call, a *Admission) *Refusal {
	d, err := g.limiter.AllowN(ctx, p.key.Prefix, g.Tiers().For(p.key), max(c.Cost, 1))
	if err != nil {
		return g.limiterFailed(p.key, err)
	}
	if !d.Allowed {
		for _, v := range d.Violated() {
			g.metrics.refusals.WithLabelValues(v).Inc()
		}
		g.refused(ctx, p, c.Endpoint)
		return rateLimited(d)
	}
	g.admitted(ctx, p, c, &d, a)
	return nil
}

// admitted notes an admitted call for the abuse signals and the walks,
// and fills its Admission a.
func (g *Guard) admitted(ctx context.Context, p *Pass, c *Call, d *ratelimit.Decision, a *Admission) {
	if s, ok := g.abuse.seen(p.key.Prefix, p.ip, p.at); ok {
		g.signal(ctx, p.key, p.ip, s)
	}
	if s, ok := g.walks.note(c, p.key.Prefix, p.at); ok {
		g.signal(ctx, p.key, p.ip, s)
	}
	a.Key, a.Decision, a.ClientIP = p.key, *d, p.ip
	a.g, a.endpoint, a.at, a.li = g, c.Endpoint, p.at, p.li
}

// refused meters a call of p's key to endpoint refused by a limit, and
// notes it for the abuse signals.
func (g *Guard) refused(ctx context.Context, p *Pass, endpoint string) {
	g.meter.Request(p.key.Prefix, endpoint, http.StatusTooManyRequests, p.at, 0)
	if s, ok := g.abuse.refused(p.key.Prefix, p.ip, p.at); ok {
		g.signal(ctx, p.key, p.ip, s)
	}
}

// limiterFailed is the 503 of a limiter that cannot decide.
func (g *Guard) limiterFailed(key apikey.Key, err error) *Refusal {
	g.log.Error("access: rate limiter failed", "err", err, "key", key.Prefix)
	g.metrics.authFailures.WithLabelValues(problem.Unavailable).Inc()
	return authRefusal(problem.Unavailable)
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

// authenticate puts the key of c in key, or returns the problem code
// refusing it at now (with key filled when it is known, so the refusal
// can be metered); checked reports a key that was presented and failed
// its check (malformed, or unknown to the store), which check counts
// against the client IP.
func (g *Guard) authenticate(ctx context.Context, c *Call, now time.Time, key *apikey.Key) (code string, checked bool) {
	if c.Key == "" {
		return problem.MissingAPIKey, false
	}
	sum, ok := apikey.Hash(c.Key)
	if !ok {
		return problem.InvalidAPIKey, true
	}
	// A key in the cache passed its checksum when it was cached; any
	// other is checked before the store is asked (a mistyped key never
	// reaches it).
	k, how, err, cached := g.cache.cached(sum, now)
	if !cached {
		if !apikey.ChecksumOK(c.Key) {
			return problem.InvalidAPIKey, true
		}
		k, how, err = g.cache.get(ctx, sum, now, g.keys.KeyByHash)
	}
	g.metrics.cacheLookup(how)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		g.noteStoreOK()
		return problem.InvalidAPIKey, true
	case err != nil:
		g.noteStore(err)
		return problem.Unavailable, false
	case how == cacheMiss:
		g.noteStoreOK()
	}
	*key = k
	if key.Expired(now) {
		// Past its grace period a replaced key is as dead as a revoked
		// one. The cached copy carries ExpiresAt, so this holds from that
		// instant on, however long the entry stays cached.
		return problem.RevokedAPIKey, false
	}
	switch key.State {
	case apikey.Active:
	case apikey.Suspended:
		return problem.SuspendedAPIKey, false
	default: // revoked, or a state this code does not know: refuse
		return problem.RevokedAPIKey, false
	}
	if c.Origin != "" && !key.AllowsOrigin(c.Origin) {
		return problem.OriginNotAllowed, false
	}
	return "", false
}

// failedCheck counts a failed key check against the client IP, and raises
// a signal when that fills the IP's window.
func (g *Guard) failedCheck(ctx context.Context, ip string) {
	d, _ := g.failures.Allow(ctx, g.AddressKey(ip), g.cfg.FailedChecks)
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
