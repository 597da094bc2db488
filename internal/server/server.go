// Package server is the process's HTTP front: the one route table of
// everything served and the middleware every answer shares (request ids,
// version header, panic recovery, the access log, latency metrics and
// CORS for the API and the image host). It mounts the parts, each with its
// own stack: the JSON API (package api, its routes behind the access
// Guard), the image host (package images), the pages (package web), the
// health check and the metrics. It knows each part only as an
// http.Handler or a set of routes, and holds no feature of its own but
// /healthz.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/index"
)

// Routes is a part that serves a set of routes: Register hands each to
// handle with its ServeMux pattern and the name logs and metrics know it
// by (package api, the website's ground and its areas meet it).
type Routes interface {
	Register(handle func(pattern, name string, h http.Handler))
}

// Join is the routes of several sets, registered in the order given (the
// website's ground first, then the areas standing on it).
func Join(sets ...Routes) Routes { return joined(sets) }

type joined []Routes

func (j joined) Register(handle func(pattern, name string, h http.Handler)) {
	for _, r := range j {
		r.Register(handle)
	}
}

// Health is what /healthz shows: Ready is false until the catalogue is
// loaded; Components holds named states such as {"store": "ok",
// "limiter": "redis"}. Degraded says a component is impaired while the
// service still answers (the store unreachable, a configured Redis gone):
// /healthz then answers 200 with status "degraded", so a load balancer
// keeps the replica and monitoring sees the state.
type Health struct {
	Ready      bool              `json:"ready"`
	Degraded   bool              `json:"-"`
	Components map[string]string `json:"components,omitempty"`
}

// Config holds what the server mounts. Catalogue is required; a nil part
// is not mounted.
type Config struct {
	// Catalogue tells /healthz whether the catalogue is loaded, and its size.
	Catalogue *index.Holder
	// API is mounted under /api, with the API's CORS.
	API Routes
	// MCP serves /mcp: the MCP streamable-HTTP transport behind the access
	// Guard (nil: not mounted).
	MCP http.Handler
	// Images is the image host, mounted at ImagePath (e.g. "/img") with its
	// CORS; off when either is empty.
	Images    http.Handler
	ImagePath string
	// Pages are the routes outside /api (buy links, pages); NotFound
	// answers every other path (nil: a plain 404).
	Pages    Routes
	NotFound http.Handler
	// Health reports the components for /healthz.
	Health func(ctx context.Context) Health
	// Metrics serves /metrics.
	Metrics http.Handler
	Logger  *slog.Logger
	// AccessLog, if set, takes the access-log lines instead of Logger.
	AccessLog AccessLog
	// Registry receives the latency histogram; nil: none.
	Registry prometheus.Registerer
	// Version is sent as X-API-Version on every answer.
	Version string
}

// Server is the HTTP handler of the process.
type Server struct {
	cfg         Config
	log         *slog.Logger
	imagePrefix string // ImagePath + "/", or "" without images
	handler     http.Handler
	table       []Route
}

// Route is one entry of the route table: its ServeMux pattern and the name
// logs and metrics know it by.
type Route struct {
	Pattern, Name string
}

// Routes returns the route table as mounted, in the order registered, so
// that tests can go over every route without a list of their own.
func (s *Server) Routes() []Route { return slices.Clone(s.table) }

// New builds the server and its route table.
func New(cfg Config) *Server {
	s := newServer(cfg)
	s.handler = s.middleware(s.routes())
	return s
}

func newServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	if cfg.Images != nil && cfg.ImagePath != "" {
		s.imagePrefix = cfg.ImagePath + "/"
	}
	return s
}

// NewImageHost is the handler of a listener of its own for the image host
// (--image-addr): images at the root, with the image host's CORS and the
// shared middleware (request ids, version header, recovery, access log).
// Only Images, Logger, AccessLog, Registry and Version of cfg are read; give
// it a Registry other than the main server's, or none.
func NewImageHost(cfg Config) http.Handler {
	cfg.ImagePath = ""
	s := newServer(cfg)
	s.imagePrefix = "/"
	mux := http.NewServeMux()
	mux.Handle("/", named("images", cfg.Images))
	s.handler = s.middleware(mux)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
