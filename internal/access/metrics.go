package access

import (
	"fmt"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the Guard's Prometheus series. None is labelled by key: the
// number of keys is unbounded, and usage per key is what metering is for.
type metrics struct {
	authFailures *prometheus.CounterVec
	refusals     *prometheus.CounterVec
	cache        *prometheus.CounterVec
	signals      *prometheus.CounterVec
	// autoSuspensions counts keys suspended on a signal, by kind and
	// result (suspended, failed).
	autoSuspensions *prometheus.CounterVec
	// cacheHits is the hot path's child, resolved once.
	cacheHits prometheus.Counter
}

// cacheLookup counts one key lookup.
func (m *metrics) cacheLookup(how cacheResult) {
	if how == cacheHit {
		m.cacheHits.Inc()
		return
	}
	m.cache.WithLabelValues(string(how)).Inc()
}

func newMetrics(reg prometheus.Registerer, status func() ratelimit.Status) (*metrics, error) {
	m := &metrics{
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fragrance_auth_failures_total",
			Help: "Requests refused by authentication, by problem code.",
		}, []string{"code"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fragrance_ratelimit_refusals_total",
			Help: "Requests refused with 429, by policy (minute, day, failed_key_checks).",
		}, []string{"policy"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fragrance_keycache_lookups_total",
			Help: "Key lookups by result: hit, miss (asked the store), stale (store down, cached key used), error.",
		}, []string{"result"}),
		signals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fragrance_abuse_signals_total",
			Help: "Abuse signals raised, by kind.",
		}, []string{"kind"}),
		autoSuspensions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fragrance_abuse_auto_suspensions_total",
			Help: "Keys suspended automatically on an abuse signal (--abuse-auto-suspend), by signal kind and result (suspended, failed).",
		}, []string{"kind", "result"}),
	}
	m.cacheHits = m.cache.WithLabelValues(string(cacheHit))
	degraded := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fragrance_ratelimit_degraded",
		Help: "1 while the configured rate-limit backend cannot be reached and the in-process limiter stands in.",
	}, func() float64 {
		if status().Degraded {
			return 1
		}
		return 0
	})
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.authFailures, m.refusals, m.cache, m.signals, m.autoSuspensions, degraded} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("access: register metrics: %w", err)
		}
	}
	return m, nil
}
