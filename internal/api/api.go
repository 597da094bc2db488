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
)

// Guard is the access layer: it authenticates, rate-limits and meters the
// requests of one endpoint. A nil Guard serves the API without keys (used by
// benchmarks that measure the access layer's cost).
type Guard interface {
	Wrap(endpoint string, h http.Handler) http.Handler
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

// Config holds the API's dependencies. Catalogue and URLs are required;
// the others may be nil, in which case their feature is off.
type Config struct {
	Catalogue *index.Holder
	// URLs builds the public URLs and accord colours of answers.
	URLs  view.URLs
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
	// catalogue: 0 means DefaultAnswerCacheMB, a negative number turns the
	// cache off.
	AnswerCacheMB int
}

// API is the handler set of /api.
type API struct {
	cfg     Config
	log     *slog.Logger
	render  *render
	answers *answerCache
	now     func() time.Time
}

// New builds the API.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &API{cfg: cfg, log: cfg.Logger, now: time.Now}
	a.render = &render{urls: cfg.URLs}
	if cfg.AnswerCacheMB == 0 {
		cfg.AnswerCacheMB = DefaultAnswerCacheMB
	}
	a.answers = newAnswerCache(cfg.AnswerCacheMB)
	return a
}
