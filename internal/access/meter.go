package access

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// meter counts requests and buy-link clicks in memory, off the request
// path, and writes them to the usage.Store in batches. A failed write puts
// the batch back, so nothing is lost while the process lives; Close writes
// what is left.
type meter struct {
	store usage.Store

	mu     sync.Mutex
	hourly map[usageKey]int64
	clicks map[clickKey]int64

	flushMu sync.Mutex // one flush at a time, so a failed batch goes back in order
}

type usageKey struct {
	prefix, endpoint, class string
	hour                    int64 // Unix seconds of the hour's start
}

type clickKey struct {
	perfumeID int64
	day       int64 // Unix seconds of the UTC day's start
}

func newMeter(store usage.Store) *meter {
	return &meter{store: store, hourly: make(map[usageKey]int64), clicks: make(map[clickKey]int64)}
}

// StatusClass maps a status code to "2xx" ... "5xx".
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

func (m *meter) request(prefix, endpoint string, status int, at time.Time) {
	k := usageKey{prefix: prefix, endpoint: endpoint, class: StatusClass(status), hour: at.Unix() - at.Unix()%3600}
	m.mu.Lock()
	m.hourly[k]++
	m.mu.Unlock()
}

func (m *meter) click(perfumeID int64, at time.Time) {
	k := clickKey{perfumeID: perfumeID, day: at.Unix() - at.Unix()%86400}
	m.mu.Lock()
	m.clicks[k]++
	m.mu.Unlock()
}

// take empties the counters and returns them as a batch.
func (m *meter) take() usage.Batch {
	m.mu.Lock()
	hourly, clicks := m.hourly, m.clicks
	m.hourly, m.clicks = make(map[usageKey]int64, len(hourly)), make(map[clickKey]int64, len(clicks))
	m.mu.Unlock()
	var b usage.Batch
	for k, n := range hourly {
		b.Hourly = append(b.Hourly, usage.Count{KeyPrefix: k.prefix, Endpoint: k.endpoint, StatusClass: k.class, Start: time.Unix(k.hour, 0).UTC(), Count: n})
	}
	for k, n := range clicks {
		b.Clicks = append(b.Clicks, usage.Click{PerfumeID: k.perfumeID, Day: time.Unix(k.day, 0).UTC(), Count: n})
	}
	return b
}

// putBack adds a batch that could not be written to the counters.
func (m *meter) putBack(b usage.Batch) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range b.Hourly {
		m.hourly[usageKey{prefix: c.KeyPrefix, endpoint: c.Endpoint, class: c.StatusClass, hour: c.Start.Unix()}] += c.Count
	}
	for _, c := range b.Clicks {
		m.clicks[clickKey{perfumeID: c.PerfumeID, day: c.Day.Unix()}] += c.Count
	}
}

// flush writes everything counted so far.
func (m *meter) flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	b := m.take()
	if b.Empty() {
		return nil
	}
	if err := m.store.RecordUsage(ctx, b); err != nil {
		m.putBack(b)
		return fmt.Errorf("flush usage: %w", err)
	}
	return nil
}

// pending returns the counts of prefix not yet flushed, for usage answers
// that must include the last few seconds.
func (m *meter) pending(prefix string) []usage.Count {
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
