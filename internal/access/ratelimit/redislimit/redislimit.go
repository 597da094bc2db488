// Package redislimit is the Redis backend of ratelimit.Limiter, for several
// replicas that must share their windows. Each decision is one Lua script
// (window.lua): the check and the count of both windows in one atomic step,
// on Redis's clock, in keys that expire with their window.
//
// The in-process limiter runs beside it as a shadow that counts what this
// replica admitted. A request must fit the shadow first, so one replica
// never over-admits, not even across a Redis outage; when Redis refuses,
// the shadow's count is cancelled. When Redis cannot be reached the shadow
// decides alone (each replica then enforces the limits on its own share of
// traffic), the switch is logged and shown by Status and the
// fragrance_ratelimit_redis_up gauge, and a probe returns to Redis by itself.
// The probe also pings a Redis that answers, so its loss shows within one
// ProbeInterval even without traffic.
// Requests admitted by the shadow during an outage are not copied to
// Redis; the shadow keeps them, so this replica still does not over-admit.
package redislimit

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

//go:embed window.lua
var windowLua string

// Options configures a Limiter. Set URL or Client.
type Options struct {
	// URL is a redis:// or rediss:// URL (see redis.ParseURL).
	URL string
	// Client is used instead of URL when set; the Limiter does not close it.
	Client redis.UniversalClient
	// Local is the in-process limiter used as shadow and fallback; it is
	// required, and should be the one limiter of the process.
	Local *ratelimit.MemLimiter
	// KeyPrefix starts every Redis key; default "fragrance:rl:".
	KeyPrefix string
	// Timeout bounds one decision in Redis; default 250ms.
	Timeout time.Duration
	// ProbeInterval is how often Redis is pinged (an unreachable one to
	// return to it, a reachable one to notice its loss); default 5s.
	ProbeInterval time.Duration
	// Logger receives the switches between Redis and the fallback.
	Logger *slog.Logger
	// Registerer receives the fragrance_ratelimit_redis_up gauge and the
	// fragrance_ratelimit_redis_fallbacks_total counter; nil registers none.
	Registerer prometheus.Registerer
	// Now, for tests only, replaces Redis's clock: its time is passed to
	// the script, so window boundaries can be tested without waiting.
	// Production leaves it nil and every replica shares Redis's TIME.
	Now func() time.Time
}

// Limiter is the Redis-backed ratelimit.Limiter.
type Limiter struct {
	client    redis.UniversalClient
	ownClient bool
	local     *ratelimit.MemLimiter
	script    *redis.Script
	prefix    string
	token     string
	seq       atomic.Uint64
	timeout   time.Duration
	now       func() time.Time
	log       *slog.Logger
	up        prometheus.Gauge
	fallbacks prometheus.Counter

	mu      sync.Mutex
	down    bool
	since   time.Time
	lastErr string

	stop chan struct{}
	done chan struct{}
}

var (
	_ ratelimit.Limiter        = (*Limiter)(nil)
	_ ratelimit.StatusReporter = (*Limiter)(nil)
)

// New returns a Limiter and starts its probe. Redis being unreachable is
// not an error: the Limiter starts in fallback (shown by Status, not
// logged: the caller decides whether to start so) and returns to Redis
// when it answers. Only a malformed URL or a missing Local is.
func New(ctx context.Context, opts Options) (*Limiter, error) {
	if opts.Local == nil {
		return nil, errors.New("redislimit: Options.Local is required")
	}
	l := &Limiter{
		client: opts.Client, local: opts.Local, script: redis.NewScript(windowLua),
		prefix: opts.KeyPrefix, timeout: opts.Timeout, now: opts.Now, log: opts.Logger,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	if l.client == nil {
		o, err := redis.ParseURL(opts.URL)
		if err != nil {
			return nil, fmt.Errorf("redislimit: parse URL: %w", err)
		}
		l.client, l.ownClient = redis.NewClient(o), true
	}
	l.setDefaults()
	if err := l.register(opts.Registerer); err != nil {
		l.closeClient()
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	l.token = hex.EncodeToString(b[:])
	if err := l.ping(ctx); err != nil {
		// Not logged as a switch: the caller decides, from Status, whether
		// starting without Redis is an error or a degraded start.
		l.setDown(err)
	} else {
		l.up.Set(1)
	}
	interval := opts.ProbeInterval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	go l.probe(interval)
	return l, nil
}

func (l *Limiter) setDefaults() {
	if l.prefix == "" {
		l.prefix = "fragrance:rl:"
	}
	if l.timeout <= 0 {
		l.timeout = 250 * time.Millisecond
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
}

func (l *Limiter) register(reg prometheus.Registerer) error {
	l.up = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "fragrance_ratelimit_redis_up",
		Help: "1 while the Redis rate limiter answers, 0 while the in-process limiter stands in for it.",
	})
	l.fallbacks = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "fragrance_ratelimit_redis_fallbacks_total",
		Help: "Times the rate limiter switched from Redis to the in-process limiter.",
	})
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{l.up, l.fallbacks} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("redislimit: register metrics: %w", err)
		}
	}
	return nil
}

// Allow decides one request of id (see the package comment).
func (l *Limiter) Allow(ctx context.Context, id string, lim apikey.Limits) (ratelimit.Decision, error) {
	return l.AllowN(ctx, id, lim, 1)
}

// AllowN decides a call of n requests of id (see ratelimit.Limiter), as
// Allow decides one.
func (l *Limiter) AllowN(ctx context.Context, id string, lim apikey.Limits, n int64) (ratelimit.Decision, error) {
	n = max(n, 1)
	local, err := l.local.AllowN(ctx, id, lim, n)
	if err != nil || !local.Allowed || l.degraded() {
		return local, err
	}
	d, err := l.eval(ctx, id, lim, false, n)
	if err != nil {
		if ctx.Err() == nil {
			l.markDown(err)
		}
		return local, nil
	}
	if !d.Allowed {
		l.local.CancelN(id, local.At, n)
	}
	return d, nil
}

// Peek reports the windows of id as Redis holds them, counting nothing;
// while Redis cannot be reached, as the in-process limiter holds them.
func (l *Limiter) Peek(ctx context.Context, id string, lim apikey.Limits) (ratelimit.Decision, error) {
	if !l.degraded() {
		d, err := l.eval(ctx, id, lim, true, 1)
		if err == nil {
			return d, nil
		}
		if ctx.Err() == nil {
			l.markDown(err)
		}
	}
	return l.local.Peek(ctx, id, lim)
}

// eval runs the script for a call of n requests; peek decides without
// counting.
func (l *Limiter) eval(ctx context.Context, id string, lim apikey.Limits, peek bool, n int64) (ratelimit.Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	base := l.prefix + "{" + id + "}:"
	keys := []string{base + "m:z", base + "m:h", base + "d:z", base + "d:h"}
	now := ""
	if l.now != nil {
		now = strconv.FormatInt(l.now().UnixMicro(), 10)
	}
	token := l.token + strconv.FormatUint(l.seq.Add(1), 36)
	mode := "0"
	if peek {
		mode = "1"
	}
	res, err := l.script.Run(ctx, l.client, keys, lim.PerMinute, lim.PerDay, l.local.ExactMax(), token, now, mode, n).Int64Slice()
	if err != nil {
		return ratelimit.Decision{}, fmt.Errorf("redislimit: run script: %w", err)
	}
	if len(res) != 8 {
		return ratelimit.Decision{}, fmt.Errorf("redislimit: script answered %d values, want 8", len(res))
	}
	at := time.UnixMicro(res[1])
	win := func(limit, used, oldest, free int64) ratelimit.WindowCount {
		wc := ratelimit.WindowCount{Limit: limit, Used: used, Refused: free > 0}
		if oldest > 0 {
			wc.OldestExpiry = time.UnixMicro(oldest)
		}
		if free > 0 {
			wc.FreeAt = time.UnixMicro(free)
		}
		return wc
	}
	return ratelimit.NewDecision(at, res[0] == 1,
		win(lim.PerMinute, res[2], res[3], res[4]),
		win(lim.PerDay, res[5], res[6], res[7])), nil
}

// Status reports whether Redis answers or the fallback stands in.
func (l *Limiter) Status() ratelimit.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ratelimit.Status{Backend: "redis", Degraded: l.down, Since: l.since, LastError: l.lastErr}
}

func (l *Limiter) degraded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

func (l *Limiter) markDown(err error) {
	if l.setDown(err) {
		l.log.Warn("rate limiter: Redis unreachable, using the in-process limiter", "err", err)
	}
}

// setDown switches to the fallback and reports whether it was a switch.
func (l *Limiter) setDown(err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return false
	}
	l.down, l.since, l.lastErr = true, time.Now(), err.Error()
	l.up.Set(0)
	l.fallbacks.Inc()
	return true
}

func (l *Limiter) markUp() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.down {
		return
	}
	l.log.Info("rate limiter: Redis answers again, back to shared windows", "after", time.Since(l.since).Round(time.Second))
	l.down, l.since, l.lastErr = false, time.Now(), ""
	l.up.Set(1)
}

func (l *Limiter) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(l.timeout, time.Second))
	defer cancel()
	return l.client.Ping(ctx).Err()
}

// probe pings Redis every interval until Close: an unreachable Redis to
// return to it, a reachable one to notice its loss even when no request
// comes, so Status (and /healthz, /metrics) never claims shared windows
// that are gone.
func (l *Limiter) probe(interval time.Duration) {
	defer close(l.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			if err := l.ping(context.Background()); err != nil {
				l.markDown(err)
			} else {
				l.markUp()
			}
		}
	}
}

// Close stops the probe and closes the client the Limiter opened.
func (l *Limiter) Close() error {
	close(l.stop)
	<-l.done
	return l.closeClient()
}

func (l *Limiter) closeClient() error {
	if l.ownClient {
		return l.client.Close()
	}
	return nil
}
