// Package meter counts what the service does, for the usage a developer
// reads and the analytics an operator reads: requests per key, endpoint,
// status class and hour; the latency of each endpoint as a histogram per
// hour; buy-link clicks, perfume views and searches that found nothing per
// day; and the abuse signals the access layer raises. Counting is in
// memory and off the request path (a map increment under a lock); a
// background loop writes everything to the usage.Store in one batch every
// FlushInterval and prunes hourly rows past HourlyRetention. A failed write
// puts the batch back, so nothing is lost while the process lives; Close
// writes what is left.
package meter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Meter. The zero value of each field means its
// default.
type Options struct {
	// FlushInterval is how often counts and signals are written; default 5s.
	FlushInterval time.Duration
	// HourlyRetention is how long hourly counts are kept; default 14 days.
	// Daily counts are kept for ever.
	HourlyRetention time.Duration
	// MaxPendingSignals bounds the signals kept while the store cannot take
	// them; default 10000 (the oldest are dropped).
	MaxPendingSignals int
	// MaxQueryLen bounds the queries kept as empty searches, in bytes;
	// longer ones are cut. Default 200.
	MaxQueryLen int
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives failed writes; default discards.
	Logger *slog.Logger
	// Registerer receives the meter's metrics; nil registers none.
	Registerer prometheus.Registerer
}

func (o *Options) setDefaults() {
	if o.FlushInterval <= 0 {
		o.FlushInterval = 5 * time.Second
	}
	if o.HourlyRetention <= 0 {
		o.HourlyRetention = 14 * 24 * time.Hour
	}
	if o.MaxPendingSignals <= 0 {
		o.MaxPendingSignals = 10_000
	}
	if o.MaxQueryLen <= 0 {
		o.MaxQueryLen = 200
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Meter counts requests, latency, clicks, views, empty searches and
// signals, and writes them to a usage.Store. It is safe for concurrent use.
type Meter struct {
	store usage.Store
	opts  Options

	mu      sync.Mutex
	hourly  map[requestKey]int64
	latency map[latencyKey]*usage.Histogram
	clicks  map[clickKey]int64
	views   map[viewKey]int64
	empty   map[searchKey]int64
	signals []usage.Signal

	flushMu sync.Mutex // one flush at a time, so a failed batch goes back in order
	flushes *prometheus.CounterVec

	stop      chan struct{}
	done      chan struct{}
	startOnce sync.Once
	closeOnce sync.Once
	closeErr  error
}

type requestKey struct {
	prefix, endpoint, class string
	hour                    int64 // Unix seconds of the hour's start
}

type latencyKey struct {
	endpoint string
	hour     int64
}

type clickKey struct {
	perfumeID int64
	day       int64 // Unix seconds of the UTC day's start
}

type viewKey struct {
	perfumeID int64
	kind      usage.ViewKind
	day       int64
}

type searchKey struct {
	query string
	day   int64
}

// New returns a Meter writing to store. Call Start to write in the
// background, and Close on shutdown.
func New(store usage.Store, opts Options) (*Meter, error) {
	opts.setDefaults()
	m := &Meter{store: store, opts: opts, stop: make(chan struct{}), done: make(chan struct{})}
	m.reset()
	m.flushes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "fragrance_usage_flushes_total",
		Help: "Usage flushes to the store, by result (ok, error).",
	}, []string{"result"})
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(m.flushes); err != nil {
			return nil, fmt.Errorf("meter: register metrics: %w", err)
		}
	}
	return m, nil
}

// reset empties the counters; under mu (or before the Meter is shared).
func (m *Meter) reset() {
	m.hourly = make(map[requestKey]int64)
	m.latency = make(map[latencyKey]*usage.Histogram)
	m.clicks = make(map[clickKey]int64)
	m.views = make(map[viewKey]int64)
	m.empty = make(map[searchKey]int64)
}

// Now is the meter's clock.
func (m *Meter) Now() time.Time { return m.opts.Now() }

// StatusClass maps a status code to its class, "2xx" ... "5xx", except
// 429, which is a class of its own (usage.ClassRateLimited): a request a
// limit refused is not a client's mistake, and the developer portal lists
// them.
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	if status == 429 {
		return usage.ClassRateLimited
	}
	return statusClasses[status/100-1] // not Itoa + "xx": a new string every request
}

var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func hourOf(t time.Time) int64 { return t.Unix() - t.Unix()%3600 }
func dayOf(t time.Time) int64  { return t.Unix() - t.Unix()%86400 }

// Request counts one request of a key (prefix) to an endpoint answered
// with status at at. took, when positive, is how long the endpoint's
// handler ran, for the endpoint's latency histogram (requests refused
// before a handler ran pass 0 and are not timed).
func (m *Meter) Request(prefix, endpoint string, status int, at time.Time, took time.Duration) {
	k := requestKey{prefix: prefix, endpoint: endpoint, class: StatusClass(status), hour: hourOf(at)}
	m.mu.Lock()
	m.hourly[k]++
	if took > 0 {
		lk := latencyKey{endpoint: endpoint, hour: k.hour}
		h := m.latency[lk]
		if h == nil {
			h = new(usage.Histogram)
			m.latency[lk] = h
		}
		h.Add(usage.LatencyBucket(took), 1)
	}
	m.mu.Unlock()
}

// Click counts one buy-link click on a perfume.
func (m *Meter) Click(perfumeID int64) {
	k := clickKey{perfumeID: perfumeID, day: dayOf(m.opts.Now())}
	m.mu.Lock()
	m.clicks[k]++
	m.mu.Unlock()
}

// View counts one view of a perfume through an answer of kind (a kind the
// store does not know is not counted).
func (m *Meter) View(perfumeID int64, kind usage.ViewKind) {
	if !kind.Valid() {
		return
	}
	k := viewKey{perfumeID: perfumeID, kind: kind, day: dayOf(m.opts.Now())}
	m.mu.Lock()
	m.views[k]++
	m.mu.Unlock()
}

// EmptySearch counts one search that found nothing. query should be
// normalised by the caller (folded as the search index folds it), so that
// spellings of one query are counted together; it is kept as valid UTF-8
// without NUL bytes, cut to at most MaxQueryLen bytes on a character
// boundary, and an empty query is not counted.
func (m *Meter) EmptySearch(query string) {
	query = strings.ReplaceAll(strings.ToValidUTF8(query, ""), "\x00", "")
	if len(query) > m.opts.MaxQueryLen {
		cut := m.opts.MaxQueryLen
		for cut > 0 && !utf8.RuneStart(query[cut]) {
			cut--
		}
		query = query[:cut]
	}
	if query == "" {
		return
	}
	k := searchKey{query: query, day: dayOf(m.opts.Now())}
	m.mu.Lock()
	m.empty[k]++
	m.mu.Unlock()
}

// Signal keeps an abuse signal for the next flush. Past MaxPendingSignals
// the oldest is dropped.
func (m *Meter) Signal(s usage.Signal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.signals) >= m.opts.MaxPendingSignals {
		m.signals = m.signals[1:]
	}
	m.signals = append(m.signals, s)
}

// take empties the counters and returns them as a batch, with the signals.
func (m *Meter) take() (usage.Batch, []usage.Signal) {
	m.mu.Lock()
	hourly, latency, clicks, views, empty, signals := m.hourly, m.latency, m.clicks, m.views, m.empty, m.signals
	m.reset()
	m.signals = nil
	m.mu.Unlock()
	var b usage.Batch
	for k, n := range hourly {
		b.Hourly = append(b.Hourly, usage.Count{KeyPrefix: k.prefix, Endpoint: k.endpoint, StatusClass: k.class, Start: time.Unix(k.hour, 0).UTC(), Count: n})
	}
	for k, h := range latency {
		for i, n := range h {
			if n > 0 {
				b.Latency = append(b.Latency, usage.Latency{Endpoint: k.endpoint, Hour: time.Unix(k.hour, 0).UTC(), Bucket: i, Count: n})
			}
		}
	}
	for k, n := range clicks {
		b.Clicks = append(b.Clicks, usage.Click{PerfumeID: k.perfumeID, Day: time.Unix(k.day, 0).UTC(), Count: n})
	}
	for k, n := range views {
		b.Views = append(b.Views, usage.View{PerfumeID: k.perfumeID, Kind: k.kind, Day: time.Unix(k.day, 0).UTC(), Count: n})
	}
	for k, n := range empty {
		b.EmptySearches = append(b.EmptySearches, usage.Search{Query: k.query, Day: time.Unix(k.day, 0).UTC(), Count: n})
	}
	return b, signals
}

// putBack adds a batch and signals that could not be written to what is
// counted now, the signals ahead of newer ones.
func (m *Meter) putBack(b usage.Batch, signals []usage.Signal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range b.Hourly {
		m.hourly[requestKey{prefix: c.KeyPrefix, endpoint: c.Endpoint, class: c.StatusClass, hour: c.Start.Unix()}] += c.Count
	}
	for _, l := range b.Latency {
		k := latencyKey{endpoint: l.Endpoint, hour: l.Hour.Unix()}
		h := m.latency[k]
		if h == nil {
			h = new(usage.Histogram)
			m.latency[k] = h
		}
		h.Add(l.Bucket, l.Count)
	}
	for _, c := range b.Clicks {
		m.clicks[clickKey{perfumeID: c.PerfumeID, day: c.Day.Unix()}] += c.Count
	}
	for _, v := range b.Views {
		m.views[viewKey{perfumeID: v.PerfumeID, kind: v.Kind, day: v.Day.Unix()}] += v.Count
	}
	for _, s := range b.EmptySearches {
		m.empty[searchKey{query: s.Query, day: s.Day.Unix()}] += s.Count
	}
	if len(signals) > 0 {
		m.signals = append(signals, m.signals...)
		if over := len(m.signals) - m.opts.MaxPendingSignals; over > 0 {
			m.signals = m.signals[over:]
		}
	}
}

// Flush writes everything counted so far: the counts in one transaction,
// then the signals. What fails to be written is kept for the next flush.
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	b, signals := m.take()
	var err error
	if !b.Empty() {
		switch werr := m.store.RecordUsage(ctx, b); {
		case werr == nil:
			b = usage.Batch{}
		case errors.Is(werr, catalog.ErrInvalid):
			// The store will never take this batch; keeping it would block
			// every later flush. The meter's own checks make this a bug.
			m.opts.Logger.Error("meter: the store refused a batch as invalid; dropped", "err", werr)
			m.flushes.WithLabelValues("dropped").Inc()
			b = usage.Batch{}
		default:
			err = fmt.Errorf("flush usage: %w", werr)
		}
	}
	if len(signals) > 0 {
		if serr := m.store.RecordSignals(ctx, signals); serr != nil {
			err = errors.Join(err, fmt.Errorf("record abuse signals: %w", serr))
		} else {
			signals = nil
		}
	}
	if !b.Empty() || len(signals) > 0 {
		m.putBack(b, signals)
	}
	if err != nil {
		m.flushes.WithLabelValues("error").Inc()
	} else {
		m.flushes.WithLabelValues("ok").Inc()
	}
	return err
}

// Pending returns the request counts of prefix not yet flushed, for usage
// answers that must include the last few seconds.
func (m *Meter) Pending(prefix string) []usage.Count {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []usage.Count
	for k, n := range m.hourly {
		if k.prefix == prefix {
			out = append(out, usage.Count{KeyPrefix: k.prefix, Endpoint: k.endpoint, StatusClass: k.class, Start: time.Unix(k.hour, 0).UTC(), Count: n})
		}
	}
	return out
}

// Start runs the background loop: a flush every FlushInterval and a prune
// of old hourly rows every hour. It returns at once; Close stops it.
func (m *Meter) Start() {
	m.startOnce.Do(func() { go m.loop() })
}

// Close stops the background loop and flushes everything left. Call it
// after the HTTP server has finished its requests and before closing the
// store. It is safe to call twice, and without Start.
func (m *Meter) Close(ctx context.Context) error {
	m.closeOnce.Do(func() {
		close(m.stop)
		started := true
		m.startOnce.Do(func() { started = false })
		if started {
			<-m.done
		}
		m.closeErr = m.Flush(ctx)
	})
	return m.closeErr
}

func (m *Meter) loop() {
	defer close(m.done)
	flush := time.NewTicker(m.opts.FlushInterval)
	defer flush.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-flush.C:
			ctx, cancel := context.WithTimeout(context.Background(), m.opts.FlushInterval)
			if err := m.Flush(ctx); err != nil {
				m.opts.Logger.Warn("meter: flush failed; counts kept for the next try", "err", err)
			}
			cancel()
		case <-prune.C:
			m.prune()
		}
	}
}

func (m *Meter) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := m.store.PruneHourlyUsage(ctx, m.opts.Now().Add(-m.opts.HourlyRetention)); err != nil {
		m.opts.Logger.Warn("meter: prune hourly usage", "err", err)
	}
}
