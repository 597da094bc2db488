package access

import (
	"fmt"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// AbuseConfig sets when abuse signals are raised. Counting is per replica,
// in fixed (tumbling) windows of Window, and each signal is raised at most
// once per key or IP per window.
type AbuseConfig struct {
	// Window is the counting period; default 10 minutes.
	Window time.Duration
	// LimitHits raises limit_hits when a key is refused (429) this many
	// times in a window; default 100.
	LimitHits int64
	// DistinctIPs raises many_ips when a key is used from this many client
	// IPs in a window; default 50.
	DistinctIPs int
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
}

// abuse watches for the three signals. Its memory is bounded by the keys and
// IPs active in one window, with at most DistinctIPs addresses per key.
type abuse struct {
	cfg AbuseConfig

	mu     sync.Mutex
	start  time.Time
	keys   map[string]*keyAbuse
	ips    map[string]bool // IPs already reported this window
	raised func(s usage.Signal)
}

type keyAbuse struct {
	refusals     int64
	ips          map[string]struct{}
	hitsReported bool
	ipsReported  bool
}

func newAbuse(cfg AbuseConfig, raised func(s usage.Signal)) *abuse {
	cfg.setDefaults()
	return &abuse{cfg: cfg, keys: make(map[string]*keyAbuse), ips: make(map[string]bool), raised: raised}
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
func (a *abuse) refused(prefix, ip string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	ka := a.key(prefix)
	ka.refusals++
	if ka.refusals >= a.cfg.LimitHits && !ka.hitsReported {
		ka.hitsReported = true
		a.raise(usage.Signal{Kind: usage.SignalLimitHits, KeyPrefix: prefix, ClientIP: ip, Count: ka.refusals, Window: a.cfg.Window, At: now,
			Detail: fmt.Sprintf("%d requests refused by the rate limits within %v", ka.refusals, a.cfg.Window)})
	}
}

// seen notes the client IP of an authenticated request of a key.
func (a *abuse) seen(prefix, ip string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	ka := a.key(prefix)
	if ka.ipsReported {
		return
	}
	if ka.ips == nil {
		ka.ips = make(map[string]struct{})
	}
	ka.ips[ip] = struct{}{}
	if len(ka.ips) >= a.cfg.DistinctIPs {
		ka.ipsReported = true
		ka.ips = nil // no need to keep them any longer
		a.raise(usage.Signal{Kind: usage.SignalManyIPs, KeyPrefix: prefix, Count: int64(a.cfg.DistinctIPs), Window: a.cfg.Window, At: now,
			Detail: fmt.Sprintf("used from %d or more client IPs within %v", a.cfg.DistinctIPs, a.cfg.Window)})
	}
}

// failedBurst notes that an IP reached the limit of failed key checks.
func (a *abuse) failedBurst(ip string, failures int64, window time.Duration, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.roll(now)
	if a.ips[ip] {
		return
	}
	a.ips[ip] = true
	a.raise(usage.Signal{Kind: usage.SignalFailedChecks, ClientIP: ip, Count: failures, Window: window, At: now,
		Detail: fmt.Sprintf("%d failed API key checks within %v", failures, window)})
}

// raise hands a signal on; under mu.
func (a *abuse) raise(s usage.Signal) { a.raised(s) }
