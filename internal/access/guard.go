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

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Guard. The zero value of every field means its
// documented default.
type Config struct {
	// Tiers are the tiers' limits at start; default DefaultTiers().
	Tiers apikey.Tiers
	// TierStore, when set, is where the tiers' limits are kept: the Guard
	// reads them every TierRefresh, so a change made by `fragrance tiers
	// set` (or any replica) applies on every replica within seconds. A tier
	// the store lacks keeps its limits from Tiers.
	TierStore apikey.TierStore
	// TierRefresh is how often TierStore is read; default 10s.
	TierRefresh time.Duration
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// IPv6Prefix is the length of the IPv6 prefix the per-IP limits count
	// as one client (AddressKey): a client is given a whole /64, so
	// counting its addresses apart would give it 2^64 windows. Default 64;
	// 128 counts each address. IPv4 addresses are counted one by one.
	IPv6Prefix int
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
	// IP; once full, every request from that IP whose key check fails
	// (missing, malformed, unknown) gets 429 until the window has room,
	// while valid keys from it are served on their own limits. Default 20
	// per minute, no day window. Per replica.
	FailedChecks apikey.Limits
	// UsageBudget limits each key's requests of /api/usage (WrapUsage),
	// which are not counted against the key's own windows: the report must
	// answer while the key is rate-limited, without being a free door.
	// Default 10 per minute and 500 per day; shared between replicas as the
	// key's windows are.
	UsageBudget apikey.Limits
	// Abuse sets the abuse signals' thresholds, and which signals suspend
	// their key.
	Abuse AbuseConfig
	// Audit appends an entry to the admin audit log (admin.Store's
	// AppendAudit); the Guard writes one for each key it suspends itself.
	// Required when Abuse.AutoSuspend names a kind.
	Audit func(ctx context.Context, e admin.AuditEntry) error
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
	def(&c.TierRefresh, 10*time.Second)
	if c.Tiers == nil {
		c.Tiers = apikey.DefaultTiers()
	}
	if c.MaxCachedKeys <= 0 {
		c.MaxCachedKeys = 100_000
	}
	if c.FailedChecks.PerMinute <= 0 && c.FailedChecks.PerDay <= 0 {
		c.FailedChecks = apikey.Limits{PerMinute: 20}
	}
	if c.UsageBudget.PerMinute <= 0 && c.UsageBudget.PerDay <= 0 {
		c.UsageBudget = apikey.Limits{PerMinute: 10, PerDay: 500}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Abuse.setDefaults()
}

// Guard authenticates, rate-limits and meters the requests of the API.
type Guard struct {
	keys     apikey.Store
	limiter  ratelimit.Limiter
	cfg      Config
	cache    *keyCache
	failures *ratelimit.MemLimiter
	meter    *meter.Meter
	abuse    *abuse
	walks    *walkers
	metrics  *metrics
	log      *slog.Logger
	now      func() time.Time

	storeDown atomic.Bool
	// tiers are the tier limits in force: cfg.Tiers completed by the
	// TierStore at each refresh.
	tiers     atomic.Pointer[apikey.Tiers]
	tiersDown atomic.Bool
	synced    time.Time // last key sync; under syncMu

	stop      chan struct{}
	done      chan struct{}
	poke      chan struct{} // KeysChanged: sync keys now
	syncMu    sync.Mutex    // one key sync at a time (synced)
	closeOnce sync.Once
}

// NewGuard returns a Guard over the key store and limiter (nil: an
// in-process MemLimiter on cfg.Now) that counts requests and abuse signals
// into m, and starts its background key sync (every KeySyncInterval). Call
// Close on shutdown, after the HTTP server has finished its requests.
func NewGuard(keys apikey.Store, m *meter.Meter, limiter ratelimit.Limiter, cfg Config) (*Guard, error) {
	if keys == nil || m == nil {
		return nil, errors.New("access: NewGuard needs a key store and a meter")
	}
	cfg.setDefaults()
	if err := cfg.Tiers.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Abuse.validate(cfg.Audit); err != nil {
		return nil, err
	}
	if limiter == nil {
		limiter = ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: cfg.Now})
	}
	g := &Guard{
		keys: keys, limiter: limiter, cfg: cfg, log: cfg.Logger, now: cfg.Now,
		cache:    newKeyCache(cfg.CacheTTL, cfg.StaleTTL, cfg.MaxCachedKeys, cfg.LookupTimeout, cfg.Now),
		failures: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: cfg.Now}),
		meter:    m,
		abuse:    newAbuse(cfg.Abuse),
		walks:    newWalkers(cfg.Abuse),
		stop:     make(chan struct{}), done: make(chan struct{}), poke: make(chan struct{}, 1),
	}
	ms, err := newMetrics(cfg.Registerer, g.LimiterStatus)
	if err != nil {
		return nil, err
	}
	g.metrics = ms
	g.tiers.Store(&cfg.Tiers)
	g.synced = g.now()
	go g.loop()
	return g, nil
}

// Tiers returns the tier limits in force. The map is shared: read only.
func (g *Guard) Tiers() apikey.Tiers { return *g.tiers.Load() }

// RefreshTiers reads the tiers' limits from the TierStore and puts them in
// force; the Guard calls it every TierRefresh. When the store cannot be
// read, the limits in force stay (logged once until it answers again).
func (g *Guard) RefreshTiers(ctx context.Context) error {
	if g.cfg.TierStore == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, g.cfg.LookupTimeout)
	defer cancel()
	stored, err := g.cfg.TierStore.TierLimits(ctx)
	if err == nil {
		next := stored.Complete(g.cfg.Tiers)
		if err = next.Validate(); err == nil {
			if old := g.Tiers(); old.String() != next.String() {
				g.log.Info("access: tier limits changed", "from", old.String(), "to", next.String())
			}
			g.tiers.Store(&next)
		}
	}
	if err != nil {
		if g.tiersDown.CompareAndSwap(false, true) {
			g.log.Warn("access: cannot read the tier limits; the ones in force stay", "err", err)
		}
		return fmt.Errorf("access: refresh tier limits: %w", err)
	}
	if g.tiersDown.CompareAndSwap(true, false) {
		g.log.Info("access: tier limits read again")
	}
	return nil
}

// Limiter is the rate limiter the Guard counts in (Redis when configured,
// shared by replicas), for other limits of the process to count in too.
func (g *Guard) Limiter() ratelimit.Limiter { return g.limiter }

// LimiterStatus describes the rate-limit backend, for /healthz.
func (g *Guard) LimiterStatus() ratelimit.Status {
	if sr, ok := g.limiter.(ratelimit.StatusReporter); ok {
		return sr.Status()
	}
	return ratelimit.Status{Backend: fmt.Sprintf("%T", g.limiter)}
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

// KeysChangedHere is KeysChanged for a change this process made itself
// (the admin dashboard, the developer portal): the sync runs before it
// returns, so the next request through this Guard already sees the change
// (a suspended key refused, a resumed one admitted), where KeysChanged's
// sync may come a moment later.
func (g *Guard) KeysChangedHere() { g.syncKeys() }

// Close stops the background key sync. Call it on shutdown; the meter,
// which the Guard counts into, is closed by its owner afterwards. It is
// safe to call twice.
func (g *Guard) Close(context.Context) error {
	g.closeOnce.Do(func() {
		close(g.stop)
		<-g.done
	})
	return nil
}

func (g *Guard) loop() {
	defer close(g.done)
	sync := time.NewTicker(g.cfg.KeySyncInterval)
	defer sync.Stop()
	tiers := time.NewTicker(g.cfg.TierRefresh)
	defer tiers.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-tiers.C:
			g.RefreshTiers(context.Background())
		case <-sync.C:
			g.syncKeys()
		case <-g.poke:
			g.syncKeys()
		}
	}
}

// syncMargin widens each key sync backwards, for clock skew between the
// replicas and whoever changed the key.
const syncMargin = 5 * time.Second

func (g *Guard) syncKeys() {
	g.syncMu.Lock() // the loop's syncs and KeysChangedHere's
	defer g.syncMu.Unlock()
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
