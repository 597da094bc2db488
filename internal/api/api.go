// Package api serves the JSON API under /api: the catalogue's endpoints,
// /api/usage and the OpenAPI document. It knows the catalogue only through
// the in-memory index, the shapes of its answers through package view (its
// hand-written encoders are the fast path, byte-checked against them), the
// access layer only through the Guard contract and usage through the
// Usage contract. What every answer of the process shares (request ids,
// the access log, CORS, metrics) is package server's, which mounts the
// routes of Register.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/prometheus/client_golang/prometheus"
)

// Guard is the access layer: it authenticates, rate-limits and meters the
// requests of one endpoint. A nil Guard serves the API without keys (used by
// benchmarks that measure the access layer's cost).
type Guard interface {
	Wrap(endpoint string, h http.Handler) http.Handler
	// WrapSized guards a handler whose calls count as cost(r) requests
	// against the key's windows (the change feed's pages, by size).
	WrapSized(endpoint string, cost func(r *http.Request) int64, h http.Handler) http.Handler
	// WrapUsage guards a handler that reports on the key's own windows
	// (/api/usage): limited on a small budget of its own, it only peeks at
	// the key's windows, so it answers while the key is rate-limited.
	WrapUsage(endpoint string, h http.Handler) http.Handler
}

// Caller tells who called a keyed endpoint: the key the Guard admitted,
// the decision of its windows and the limits that apply to it.
type Caller interface {
	Caller(ctx context.Context) (apikey.Key, ratelimit.Decision, apikey.Limits, bool)
}

// Usage is what the API needs of the meter: a key's usage report, and the
// counts of perfume views and of searches that found nothing.
type Usage interface {
	Report(ctx context.Context, prefix string, days int) (usage.Report, error)
	View(perfumeID int64, kind usage.ViewKind)
	EmptySearch(query string)
}

// Config holds the API's dependencies. Catalogue and View are required;
// the others may be nil, in which case their feature is off.
type Config struct {
	Catalogue *index.Holder
	// View builds the answers' shapes, with their public URLs and accord colours.
	View  view.Builder
	Guard Guard
	// Caller and Usage serve GET /api/usage (both needed) and count views
	// and empty searches (Usage).
	Caller Caller
	Usage  Usage
	// Changes serves the change feed, GET /api/perfumes/changes; nil
	// leaves the route out.
	Changes ChangeFeed
	Logger  *slog.Logger
	// SiteSearch wraps the keyless site search (/api/search): the per-IP
	// limit of the access layer. Nil: unlimited (tests, benchmarks).
	SiteSearch func(http.Handler) http.Handler
	// AnswerCacheMB is how many megabytes of encoded answers are kept per
	// catalogue: 0 sizes the cache from MemoryLimit and the catalogue (a
	// tenth of the limit, no more than a quarter of what the catalogue
	// leaves of it less the item memo's share, within 8 and 256 MB;
	// DefaultAnswerCacheMB without a limit), a negative number turns the
	// cache off. MemoryLimit also sizes the item memo (itemMemoBytes).
	AnswerCacheMB int
	// AnswerCacheMinCost is the least an answer must have cost to make
	// for the cache to keep it: 0 means 10 µs, a negative duration keeps
	// every answer (tests that must see each answer come from the cache).
	AnswerCacheMinCost time.Duration
	// MemoryLimit is the process's soft memory limit in bytes
	// (debug.SetMemoryLimit); 0 or math.MaxInt64: none.
	MemoryLimit int64
	// Registry receives the answer cache's metrics; nil: none.
	Registry prometheus.Registerer
}

// API is the handler set of /api.
type API struct {
	cfg     Config
	log     *slog.Logger
	render  *render
	answers *answerCache
}

// New builds the API.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &API{cfg: cfg, log: cfg.Logger}
	a.render = newRender(cfg.View)
	a.answers = newAnswerCache(cfg.AnswerCacheMB, cfg.MemoryLimit)
	a.render.itemMemo = newAutoItemMemo(cfg.MemoryLimit)
	if cfg.AnswerCacheMinCost != 0 {
		a.answers.minCost = max(cfg.AnswerCacheMinCost, 0)
	}
	if cfg.Registry != nil {
		cfg.Registry.MustRegister(a.answers.collectors()...)
	}
	return a
}
