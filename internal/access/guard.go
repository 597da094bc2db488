package access

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Guard. The zero value of every field means its
// documented default.
type Config struct {
	// Tiers are the tiers' limits; default DefaultTiers().
	Tiers apikey.Tiers
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// CacheTTL is how long a key checked in the store is trusted without
	// asking again; default 10s. Changes to keys (suspend, revoke) reach a
	// replica within KeySyncInterval, and within CacheTTL at worst.
	CacheTTL time.Duration
	// StaleTTL is how long after its last successful lookup a cached key
	// keeps working while the store cannot be reached; default 5m. Keys not
	// cached then get 503: authentication fails closed.
	StaleTTL time.Duration
	// MaxCachedKeys bounds the cache; default 100000.
	MaxCachedKeys int
	// LookupTimeout bounds one store lookup; default 2s.
	LookupTimeout time.Duration
	// KeySyncInterval is how often changed keys are fetched to refresh the
	// cache; default 2s.
	KeySyncInterval time.Duration
	// FailedChecks limits failed key checks (malformed, unknown) per client
	// IP; once full, every request from that IP gets 429 until the window
	// has room. Default 20 per minute, no day window. Per replica.
	FailedChecks apikey.Limits
	// FlushInterval is how often usage and signals are written; default 5s.
	FlushInterval time.Duration
	// HourlyRetention is how long hourly usage is kept; default 14 days.
	// Daily usage is kept for ever.
	HourlyRetention time.Duration
	// Abuse sets the abuse signals' thresholds.
	Abuse AbuseConfig
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives store outages and flush failures; default discards.
	Logger *slog.Logger
	// Registerer receives the Guard's metrics; nil registers none.
	Registerer prometheus.Registerer
}

func (c *Config) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.CacheTTL, 10*time.Second)
	def(&c.StaleTTL, 5*time.Minute)
	def(&c.LookupTimeout, 2*time.Second)
	def(&c.KeySyncInterval, 2*time.Second)
	def(&c.FlushInterval, 5*time.Second)
	def(&c.HourlyRetention, 14*24*time.Hour)
	if c.Tiers == nil {
		c.Tiers = apikey.DefaultTiers()
	}
	if c.MaxCachedKeys <= 0 {
		c.MaxCachedKeys = 100_000
	}
	if c.FailedChecks.PerMinute <= 0 && c.FailedChecks.PerDay <= 0 {
		c.FailedChecks = apikey.Limits{PerMinute: 20}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Guard authenticates, rate-limits and meters the requests of the API.
type Guard struct {
	keys     apikey.Store
	usage    usage.Store
	limiter  Limiter
	cfg      Config
	cache    *keyCache
	failures *MemLimiter
	meter    *meter
	abuse    *abuse
	metrics  *metrics
	log      *slog.Logger
	now      func() time.Time

	storeDown atomic.Bool
	synced    time.Time // last key sync; used by the loop only

	stop      chan struct{}
	done      chan struct{}
	poke      chan struct{} // KeysChanged: sync keys now
	closeOnce sync.Once
	closeErr  error
}

// NewGuard returns a Guard over the stores and limiter (nil: an in-process
// MemLimiter on cfg.Now) and starts its background loop: usage and signal
// flushes every FlushInterval, key sync every KeySyncInterval, pruning of
// old hourly usage every hour. Call Close on shutdown, after the HTTP
// server has finished its requests.
func NewGuard(keys apikey.Store, usages usage.Store, limiter Limiter, cfg Config) (*Guard, error) {
	if keys == nil || usages == nil {
		return nil, errors.New("access: NewGuard needs a key store and a usage store")
	}
	cfg.setDefaults()
	if err := cfg.Tiers.Validate(); err != nil {
		return nil, err
	}
	if limiter == nil {
		limiter = NewMemLimiter(MemOptions{Now: cfg.Now})
	}
	g := &Guard{
		keys: keys, usage: usages, limiter: limiter, cfg: cfg, log: cfg.Logger, now: cfg.Now,
		cache:    newKeyCache(cfg.CacheTTL, cfg.StaleTTL, cfg.MaxCachedKeys, cfg.LookupTimeout, cfg.Now),
		failures: NewMemLimiter(MemOptions{Now: cfg.Now}),
		meter:    newMeter(usages),
		stop:     make(chan struct{}), done: make(chan struct{}), poke: make(chan struct{}, 1),
	}
	m, err := newMetrics(cfg.Registerer, g.LimiterStatus)
	if err != nil {
		return nil, err
	}
	g.metrics = m
	g.abuse = newAbuse(cfg.Abuse, func(kind string) { m.signals.WithLabelValues(kind).Inc() })
	g.synced = g.now()
	go g.loop()
	return g, nil
}

// Tiers returns the tier limits in force.
func (g *Guard) Tiers() apikey.Tiers { return g.cfg.Tiers }

// LimiterStatus describes the rate-limit backend, for /healthz.
func (g *Guard) LimiterStatus() LimiterStatus {
	if sr, ok := g.limiter.(StatusReporter); ok {
		return sr.Status()
	}
	return LimiterStatus{Backend: fmt.Sprintf("%T", g.limiter)}
}

// KeysChanged asks for an immediate key sync: a store that can announce
// key changes (PostgreSQL's NOTIFY) calls it, so a revocation on one replica
// reaches every replica's cache at once rather than at the next periodic
// sync. It never blocks.
func (g *Guard) KeysChanged() {
	select {
	case g.poke <- struct{}{}:
	default:
	}
}

// RecordClick counts one buy-link click on a perfume (for /goto).
func (g *Guard) RecordClick(perfumeID int64) { g.meter.click(perfumeID, g.now()) }

// Flush writes the usage counted and the signals raised so far.
func (g *Guard) Flush(ctx context.Context) error {
	err := g.meter.flush(ctx)
	if err != nil {
		g.metrics.flushes.WithLabelValues("error").Inc()
	} else {
		g.metrics.flushes.WithLabelValues("ok").Inc()
	}
	if s := g.abuse.take(); len(s) > 0 {
		if serr := g.usage.RecordSignals(ctx, s); serr != nil {
			g.abuse.putBack(s)
			err = errors.Join(err, fmt.Errorf("record abuse signals: %w", serr))
		}
	}
	return err
}

// Close stops the background loop and flushes everything left. Call it
// after http.Server.Shutdown has returned, so no request is still being
// metered, and before closing the stores. It is safe to call twice.
func (g *Guard) Close(ctx context.Context) error {
	g.closeOnce.Do(func() {
		close(g.stop)
		<-g.done
		g.closeErr = g.Flush(ctx)
	})
	return g.closeErr
}

func (g *Guard) loop() {
	defer close(g.done)
	flush := time.NewTicker(g.cfg.FlushInterval)
	defer flush.Stop()
	sync := time.NewTicker(g.cfg.KeySyncInterval)
	defer sync.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-flush.C:
			ctx, cancel := context.WithTimeout(context.Background(), g.cfg.FlushInterval)
			if err := g.Flush(ctx); err != nil {
				g.log.Warn("access: usage flush failed; counts kept for the next try", "err", err)
			}
			cancel()
		case <-sync.C:
			g.syncKeys()
		case <-g.poke:
			g.syncKeys()
		case <-prune.C:
			g.pruneUsage()
		}
	}
}

// syncMargin widens each key sync backwards, for clock skew between the
// replicas and whoever changed the key.
const syncMargin = 5 * time.Second

func (g *Guard) syncKeys() {
	start := g.now()
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.LookupTimeout)
	defer cancel()
	ks, err := g.keys.KeysChangedSince(ctx, g.synced.Add(-syncMargin))
	if err != nil {
		g.noteStore(err)
		return
	}
	g.cache.update(ks, start)
	g.synced = start
}

func (g *Guard) pruneUsage() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := g.usage.PruneHourlyUsage(ctx, g.now().Add(-g.cfg.HourlyRetention)); err != nil {
		g.log.Warn("access: prune hourly usage", "err", err)
	}
}

// noteStore logs the first failure of the key store in a row.
func (g *Guard) noteStore(err error) {
	if g.storeDown.CompareAndSwap(false, true) {
		g.log.Error("access: key store unreachable; cached keys keep working for a while, others get 503", "err", err, "staleTTL", g.cfg.StaleTTL)
	}
}

func (g *Guard) noteStoreOK() {
	if g.storeDown.CompareAndSwap(true, false) {
		g.log.Info("access: key store answers again")
	}
}
