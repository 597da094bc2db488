package server

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/problem"
)

// routes is the route table of everything the process serves.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	handle := func(pattern, name string, h http.Handler) {
		mux.Handle(pattern, named(name, h))
		s.table = append(s.table, Route{Pattern: pattern, Name: name})
	}

	// The JSON API: /api/..., each keyed route behind the access Guard.
	if s.cfg.API != nil {
		s.cfg.API.Register(handle)
	}
	// The MCP endpoint: POST /mcp, keyed, each tool call metered.
	if s.cfg.MCP != nil {
		handle("/mcp", "mcp", s.cfg.MCP)
	}
	// The process: health and metrics.
	handle("/healthz", "healthz", problem.GetOnly(http.HandlerFunc(s.healthz)))
	if s.cfg.Metrics != nil {
		handle("/metrics", "metrics", problem.GetOnly(s.cfg.Metrics))
	}
	// The image host: /img/perfume/<id>.jpg, /img/perfume-nobg/<id>.webp.
	if s.imagePrefix != "" {
		handle(s.imagePrefix, "images", http.StripPrefix(s.cfg.ImagePath, s.cfg.Images))
	}
	// The pages: buy links, documentation, the changelog.
	if s.cfg.Pages != nil {
		s.cfg.Pages.Register(handle)
	}
	notFound := s.cfg.NotFound
	if notFound == nil {
		notFound = http.NotFoundHandler()
	}
	handle("/", "pages", notFound)
	return mux
}
