// Package usage is the contract of usage metering: what the meter counts
// (requests per key, endpoint, status class and hour; the latency of each
// endpoint per hour; buy-link clicks, perfume views and searches that found
// nothing, per day) and the abuse signals the access layer raises, and the
// Store the backends meet to keep them. It holds types, the latency bucket
// scheme and interfaces, and imports only the standard library and the
// catalogue's error kinds.
package usage

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Count is a number of requests of one key to one endpoint with one
// status class ("2xx" ... "5xx", and ClassRateLimited) in one hour or one
// day starting at Start (UTC).
type Count struct {
	KeyPrefix   string
	Endpoint    string
	StatusClass string
	Start       time.Time
	Count       int64
}

// ClassRateLimited is the status class of requests a rate limit refused
// (429): they are counted apart from the other 4xx answers, so a key's
// refusals can be told from its mistakes.
const ClassRateLimited = "429"

// Click is a number of buy-link clicks on one perfume in one UTC day.
type Click struct {
	PerfumeID int64
	Day       time.Time
	Count     int64
}

// Batch is what the meter flushes at once: hourly request counts (the
// store adds each to its hour and to its day), hourly latency buckets and
// daily counts of clicks, perfume views and empty searches. The store adds
// every count to what it holds, so batches from several replicas merge.
type Batch struct {
	Hourly        []Count
	Clicks        []Click
	Latency       []Latency
	Views         []View
	EmptySearches []Search
}

// Check refuses a batch a store must not keep: a latency bucket outside
// the histogram, a view of an unknown kind, or an empty search whose query
// is not UTF-8 text without NUL bytes (which a text column cannot hold).
// Every Store applies it before writing anything of the batch, so the
// backends agree on the rule; the error wraps catalog.ErrInvalid.
func (b Batch) Check() error {
	for _, l := range b.Latency {
		if l.Bucket < 0 || l.Bucket >= LatencyBuckets {
			return fmt.Errorf("record usage: latency bucket %d of %q out of range 0..%d: %w",
				l.Bucket, l.Endpoint, LatencyBuckets-1, catalog.ErrInvalid)
		}
	}
	for _, v := range b.Views {
		if !v.Kind.Valid() {
			return fmt.Errorf("record usage: unknown view kind %q: %w", v.Kind, catalog.ErrInvalid)
		}
	}
	for _, s := range b.EmptySearches {
		if !utf8.ValidString(s.Query) || strings.IndexByte(s.Query, 0) >= 0 {
			return fmt.Errorf("record usage: empty search %q is not UTF-8 text: %w", s.Query, catalog.ErrInvalid)
		}
	}
	return nil
}

// Empty reports whether b holds nothing to write.
func (b Batch) Empty() bool {
	return len(b.Hourly)+len(b.Clicks)+len(b.Latency)+len(b.Views)+len(b.EmptySearches) == 0
}

// Signal kinds recorded for the admin dashboard.
const (
	SignalLimitHits    = "limit_hits"    // a key keeps hitting its limits
	SignalManyIPs      = "many_ips"      // a key is used from unusually many client IPs
	SignalFailedChecks = "failed_checks" // a burst of failed key checks from one client IP
)

// Signal is one abuse observation.
type Signal struct {
	ID        int64
	Kind      string
	KeyPrefix string // empty for failed_checks
	ClientIP  string // empty for many_ips
	// Count is what crossed the threshold (refusals, distinct IPs, failures)
	// within Window.
	Count  int64
	Window time.Duration
	Detail string
	At     time.Time
}

// Store persists usage counts and abuse signals. A batch holding a latency
// bucket outside 0..LatencyBuckets-1, a view of a kind that is not Valid or
// an empty search whose query is not UTF-8 text without NUL bytes is
// refused whole, with an error wrapping catalog.ErrInvalid. TopViewed and
// EmptySearches answer nothing for a limit of zero or less. Endpoints and
// queries are ordered byte by byte.
type Store interface {
	// HourlyLatency returns the latency buckets of every endpoint for the
	// hours starting in [from, to) that are still kept, ordered by hour,
	// endpoint and bucket.
	HourlyLatency(ctx context.Context, from, to time.Time) ([]Latency, error)
	// TopViewed returns the perfumes viewed most over the days starting in
	// [from, to), most viewed first (ties: lower id first), at most limit.
	TopViewed(ctx context.Context, from, to time.Time, limit int) ([]PerfumeViews, error)
	// EmptySearches returns the searches that found nothing over the days
	// starting in [from, to), summed per query, most frequent first (ties:
	// query order), at most limit; Day is the last day the query was seen.
	EmptySearches(ctx context.Context, from, to time.Time, limit int) ([]Search, error)
	// RecordUsage adds every count of b (hourly requests, latency buckets,
	// clicks, views and empty searches) to the stored totals in one
	// transaction: all of b is written or none of it.
	RecordUsage(ctx context.Context, b Batch) error
	// DailyUsage returns the per-day counts of a key (every key when prefix
	// is empty) for days starting in [from, to), ordered by day.
	DailyUsage(ctx context.Context, prefix string, from, to time.Time) ([]Count, error)
	// HourlyUsage is DailyUsage by the hour, for the hours still kept.
	HourlyUsage(ctx context.Context, prefix string, from, to time.Time) ([]Count, error)
	// DailyClicks returns the buy-link clicks of days in [from, to).
	DailyClicks(ctx context.Context, from, to time.Time) ([]Click, error)
	// PruneHourlyUsage deletes hourly counts and hourly latency of hours
	// before before and returns how many rows went. Daily counts are kept.
	PruneHourlyUsage(ctx context.Context, before time.Time) (int64, error)
	// RecordSignals stores abuse signals.
	RecordSignals(ctx context.Context, s []Signal) error
	// Signals returns the signals at or after since, newest first, at most limit.
	Signals(ctx context.Context, since time.Time, limit int) ([]Signal, error)
}

// Day is one UTC day of a key's requests.
type Day struct {
	Date       string           `json:"date"`
	Requests   int64            `json:"requests"`
	ByStatus   map[string]int64 `json:"byStatus"`
	ByEndpoint map[string]int64 `json:"byEndpoint"`
}

// Report is a key's usage over the last days, today included.
type Report struct {
	KeyPrefix string `json:"keyPrefix"`
	// Today is the last element of Days.
	Today Day `json:"today"`
	// Days are oldest first, one per day, with zero days included.
	Days []Day `json:"days"`
	// Endpoints totals the requests per endpoint over Days.
	Endpoints map[string]int64 `json:"endpoints"`
	// Total is the number of requests over Days.
	Total int64 `json:"total"`
}

// MaxReportDays bounds a usage report.
const MaxReportDays = 90
