// Package api serves the JSON API under /api, the buy-link redirect, the
// health check and the OpenAPI document. It knows the catalogue only through
// the in-memory index and the access layer only through the Guard contract.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Guard is the access layer: it authenticates, rate-limits and meters the
// requests of one endpoint. A nil Guard serves the API without keys (used by
// benchmarks that measure the access layer's cost).
type Guard interface {
	Wrap(endpoint string, h http.Handler) http.Handler
}

// Images builds image URLs and knows which transparent images exist.
type Images interface {
	ImageURL(id int64) string
	TransparentURL(id int64) string
	TransparentAvailable(id int64) bool
}

// Health reports the state of the parts /healthz shows. Ready is false until
// the catalogue is loaded; Components holds named states such as
// {"store": "ok", "limiter": "redis"}.
type Health struct {
	Ready      bool              `json:"ready"`
	Components map[string]string `json:"components,omitempty"`
}

// Config holds the server's dependencies. Catalogue is required; the others
// may be nil, in which case their feature is off.
type Config struct {
	Catalogue *index.Holder
	Guard     Guard
	// Usage serves GET /api/usage (behind the Guard).
	Usage  http.Handler
	Images Images
	// ImageHost, when not nil, is mounted at ImagePath (e.g. "/img").
	ImageHost http.Handler
	ImagePath string
	// BaseURL is the public address of the service, e.g. https://api.example.com.
	BaseURL string
	// ShopURL is the buy-link template; {brand}, {name}, {slug} and {id} are
	// replaced by query-escaped values.
	ShopURL string
	// Click counts a buy-link click of a perfume (by numeric id).
	Click func(perfumeID int64)
	// AccordColor gives an accord's #RRGGBB colour.
	AccordColor func(name string) string
	Health      func(ctx context.Context) Health
	// Pages serves everything outside /api (website, portal, admin), if set.
	Pages  http.Handler
	Logger *slog.Logger
	// AccessLog, if set, takes the access-log lines instead of Logger.
	AccessLog AccessLog
	Registry  prometheus.Registerer
	// Metrics serves /metrics, if set.
	Metrics http.Handler
	Version string
	// AnswerCacheMB is how many megabytes of encoded answers are kept per
	// catalogue: 0 means DefaultAnswerCacheMB, a negative number turns the
	// cache off.
	AnswerCacheMB int
}

// Server is the HTTP handler of the service.
type Server struct {
	cfg     Config
	log     *slog.Logger
	render  *render
	answers *answerCache
	handler http.Handler
	now     func() time.Time
}

// New builds the server and its route table.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.AccordColor == nil {
		cfg.AccordColor = func(string) string { return "#CCCCCC" }
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, log: cfg.Logger, now: time.Now}
	s.render = &render{urls: newURLs(strings.TrimRight(cfg.BaseURL, "/"), cfg.Images, cfg.AccordColor)}
	if cfg.AnswerCacheMB == 0 {
		cfg.AnswerCacheMB = DefaultAnswerCacheMB
	}
	s.answers = newAnswerCache(cfg.AnswerCacheMB)
	s.handler = s.middleware(s.routes())
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// URLs builds the public URLs of API answers and memoizes the small pure
// functions every answer calls many times (accord colours, perfumer slugs).
type URLs struct {
	base   string
	images Images
	color  func(string) string
	colors *memoStrings
	slugs  *memoStrings
}

func newURLs(base string, images Images, color func(string) string) URLs {
	return URLs{base: base, images: images, color: color,
		colors: newMemoStrings(color), slugs: newMemoStrings(search.Slugify)}
}

// Image is the bottle photo URL of a perfume.
func (u URLs) Image(id int64) string {
	if u.images == nil {
		return u.base + "/img/perfume/" + strconv.FormatInt(id, 10) + ".jpg"
	}
	return u.images.ImageURL(id)
}

func (u URLs) appendImage(b []byte, id int64) []byte {
	if u.images == nil {
		b = appendStringBody(append(b, '"'), u.base)
		b = strconv.AppendInt(append(b, "/img/perfume/"...), id, 10)
		return append(b, `.jpg"`...)
	}
	return appendString(b, u.images.ImageURL(id))
}

// Transparent is the transparent-background image URL of a perfume.
func (u URLs) Transparent(id int64) string {
	if u.images == nil {
		return u.base + "/img/perfume-nobg/" + strconv.FormatInt(id, 10) + ".webp"
	}
	return u.images.TransparentURL(id)
}

func (u URLs) appendTransparent(b []byte, id int64) []byte {
	if u.images == nil {
		b = appendStringBody(append(b, '"'), u.base)
		b = strconv.AppendInt(append(b, "/img/perfume-nobg/"...), id, 10)
		return append(b, `.webp"`...)
	}
	return appendString(b, u.images.TransparentURL(id))
}

// TransparentAvailable reports whether the transparent image exists.
func (u URLs) TransparentAvailable(id int64) bool {
	return u.images != nil && u.images.TransparentAvailable(id)
}

// Buy is the buy-link of a perfume: {base}/goto/{slug}.
func (u URLs) Buy(slug string) string { return u.base + "/goto/" + slug }

func (u URLs) appendBuy(b []byte, slug string) []byte {
	b = appendStringBody(append(b, '"'), u.base)
	b = appendStringBody(append(b, "/goto/"...), slug)
	return append(b, '"')
}

// AccordColor is the colour of an accord.
func (u URLs) AccordColor(name string) string { return u.colors.get(name) }

// slug is the slug of a perfumer's name.
func (u URLs) slug(name string) string { return u.slugs.get(name) }
