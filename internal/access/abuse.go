package access

import (
	"fmt"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// AbuseConfig sets when abuse signals are raised, and which of them
// suspend their key. Counting is per replica. The signals of refusals and
// IPs count in fixed (tumbling) windows of Window, each raised at most once
// per key or IP per window; the scraping signals (walks) count from a
// walk's first request, each raised at most once per key per Window.
type AbuseConfig struct {
	// Window is the counting period; default 10 minutes.
	Window time.Duration
	// LimitHits raises limit_hits when a key is refused (429) this many
	// times in a window; default 100.
	LimitHits int64
	// DistinctIPs raises many_ips when a key is used from this many client
	// IPs in a window; default 50.
	DistinctIPs int
	// PageWalk raises page_walk when one key's requests of ListEndpoint
	// cover this many consecutive pages within Window of the walk's first;
	// default 50 (at most 100 perfumes a page: 5,000 perfumes).
	PageWalk int
	// SlugWalk raises slug_walk when one key fetches this many details
	// (DetailEndpoint) in ascending slug order within Window of the walk's
	// first; default 200.
	SlugWalk int
	// FeedWalk raises feed_walk when one key's change feed pages within
	// Window of its first ask for this many records (each page counted at
	// the size it is charged for); default 100,000, a few walks of the
	// bundled catalogue.
	FeedWalk int64
	// FeedEndpoint is the change feed's endpoint name; default
	// "perfumes.changes".
	FeedEndpoint string
	// ListEndpoint and DetailEndpoint are the endpoint names (as Wrap is
	// given them) of the list whose page parameter, and of the detail whose
	// last path segment (the slug), the walks follow; default
	// "perfumes.list" and "perfumes.detail".
	ListEndpoint, DetailEndpoint string
	// MaxWalkers bounds the keys whose walks are followed at once; beyond,
	// the key seen least recently is forgotten. Default 10,000 (a few hundred
	// bytes each).
	MaxWalkers int
	// AutoSuspend names the signal kinds that suspend their key at once
	// (ParseSignalKinds reads a list); empty, the default, suspends
	// nothing: the signals are recorded for the operator. limit_hits
	// suspends free-tier keys only: a paying customer living at its
	// limit needs a larger plan, not a suspension. Needs Config.Audit.
	AutoSuspend []string
}

// DefaultAbuseConfig returns the configuration the zero AbuseConfig stands
// for: its documented defaults, auto-suspend off.
func DefaultAbuseConfig() AbuseConfig {
	var c AbuseConfig
	c.setDefaults()
	return c
}

func (c *AbuseConfig) setDefaults() {
	if c.Window <= 0 {
		c.Window = 10 * time.Minute
	}
	if c.LimitHits <= 0 {
		c.LimitHits = 100
	}
	if c.DistinctIPs <= 0 {
		c.DistinctIPs = 50
	}
	if c.PageWalk <= 0 {
		c.PageWalk = 50
	}
	if c.SlugWalk <= 0 {
		c.SlugWalk = 200
	}
	if c.FeedWalk <= 0 {
		c.FeedWalk = 100_000
	}
	if c.FeedEndpoint == "" {
		c.FeedEndpoint = "perfumes.changes"
	}
	if c.ListEndpoint == "" {
		c.ListEndpoint = "perfumes.list"
	}
	if c.DetailEndpoint == "" {
		c.DetailEndpoint = "perfumes.detail"
	}
	if c.MaxWalkers <= 0 {
		c.MaxWalkers = 10_000
	}
}

// abuse watches for the signals of refusals, IPs and failed checks; each
// of its methods returns the signal it raises, if any. Its memory is
// bounded by the keys and IPs active in one window, with at most
// DistinctIPs addresses per key.
type abuse struct {
	cfg AbuseConfig

	mu    sync.Mutex
	start time.Time
	keys  map[string]*keyAbuse
	ips   map[string]bool // IPs already reported this window
}

type keyAbuse struct {
	refusals     int64
	ips          map[string]struct{}
	hitsReported bool
	ipsReported  bool
}

func newAbuse(cfg AbuseConfig) *abuse {
	return &abuse{cfg: cfg, keys: make(map[string]*keyAbuse), ips: make(map[string]bool)}
}

// roll starts a new window when the current one is over; under mu.
func (a *abuse) roll(now time.Time) {
	if now.Sub(a.start) < a.cfg.Window {
		return
	}
	a.start = now.Truncate(a.cfg.Window)
	clear(a.keys)
	clear(a.ips)
}

func (a *abuse) key(prefix string) *keyAbuse {
	ka := a.keys[prefix]
	if ka == nil {
		ka = &keyAbuse{}
		a.keys[prefix] = ka
	}
	return ka
}

// refused notes a 429 of a key.
func (a *abuse) refused(prefix, ip string, now time.Time) (usage.Signal, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	ka := a.key(prefix)
	ka.refusals++
	if ka.refusals >= a.cfg.LimitHits && !ka.hitsReported {
		ka.hitsReported = true
		return usage.Signal{Kind: usage.SignalLimitHits, KeyPrefix: prefix, ClientIP: ip, Count: ka.refusals, Window: a.cfg.Window, At: now,
			Detail: fmt.Sprintf("%d requests refused by the rate limits within %v", ka.refusals, a.cfg.Window)}, true
	}
	return usage.Signal{}, false
}

// seen notes the client IP of an authenticated request of a key.
func (a *abuse) seen(prefix, ip string, now time.Time) (usage.Signal, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	ka := a.key(prefix)
	if ka.ipsReported {
		return usage.Signal{}, false
	}
	if ka.ips == nil {
		ka.ips = make(map[string]struct{})
	}
	ka.ips[ip] = struct{}{}
	if len(ka.ips) >= a.cfg.DistinctIPs {
		ka.ipsReported = true
		ka.ips = nil // no need to keep them any longer
		return usage.Signal{Kind: usage.SignalManyIPs, KeyPrefix: prefix, Count: int64(a.cfg.DistinctIPs), Window: a.cfg.Window, At: now,
			Detail: fmt.Sprintf("used from %d or more client IPs within %v", a.cfg.DistinctIPs, a.cfg.Window)}, true
	}
	return usage.Signal{}, false
}

// failedBurst notes that an IP reached the limit of failed key checks.
func (a *abuse) failedBurst(ip string, failures int64, window time.Duration, now time.Time) (usage.Signal, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	if a.ips[ip] {
		return usage.Signal{}, false
	}
	a.ips[ip] = true
	return usage.Signal{Kind: usage.SignalFailedChecks, ClientIP: ip, Count: failures, Window: window, At: now,
		Detail: fmt.Sprintf("%d failed API key checks within %v", failures, window)}, true
}
