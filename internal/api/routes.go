package api

import "net/http"

// routes is the whole route table of the service, in one place.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	// The API. Every route is GET/HEAD only (checked before the key, so a
	// wrong method is a 405 whatever the key) and behind the access Guard.
	s.api(mux, "/api/perfumes", "perfumes.list", s.listPerfumes)
	s.api(mux, "/api/perfumes/match", "perfumes.match", s.matchPerfumes)
	s.api(mux, "/api/perfumes/{slug}", "perfumes.detail", s.getPerfume)
	s.api(mux, "/api/perfumes/{slug}/similar", "perfumes.similar", s.similarPerfumes)
	s.api(mux, "/api/perfumes/{slug}/dupes", "perfumes.dupes", s.dupePerfumes)
	s.api(mux, "/api/brands", "brands.list", s.listBrands)
	s.api(mux, "/api/notes", "notes.list", s.listNotes)
	s.api(mux, "/api/perfumers", "perfumers.list", s.listPerfumers)
	s.api(mux, "/api/perfumers/{slug}", "perfumers.detail", s.getPerfumer)
	s.api(mux, "/api/accords", "accords.list", s.listAccords)
	if s.cfg.Usage != nil {
		s.apiHandler(mux, "/api/usage", "usage", s.cfg.Usage)
	}
	// Unknown paths under /api answer 404 problems, after the key check.
	s.api(mux, "/api/", "unknown", s.notFound)

	// Without a key.
	mux.Handle("/api/openapi.json", s.route("openapi", getOnly(http.HandlerFunc(s.openAPI))))
	mux.Handle("/healthz", s.route("healthz", getOnly(http.HandlerFunc(s.healthz))))
	mux.Handle("/goto/{slug}", s.route("goto", getOnly(http.HandlerFunc(s.gotoShop))))
	if s.cfg.Metrics != nil {
		mux.Handle("/metrics", s.route("metrics", getOnly(s.cfg.Metrics)))
	}
	if s.cfg.ImageHost != nil && s.cfg.ImagePath != "" {
		mux.Handle(s.cfg.ImagePath+"/", s.route("images", http.StripPrefix(s.cfg.ImagePath, s.cfg.ImageHost)))
	}
	if s.cfg.Pages != nil {
		mux.Handle("/", s.route("pages", s.cfg.Pages))
	} else {
		mux.Handle("/", s.route("pages", http.HandlerFunc(s.pageNotFound)))
	}
	return mux
}

// api registers an API handler that returns an error.
func (s *Server) api(mux *http.ServeMux, pattern, endpoint string, h func(http.ResponseWriter, *http.Request) error) {
	s.apiHandler(mux, pattern, endpoint, s.handle(h))
}

// apiHandler registers an API route: method check, readiness, then the
// Guard (when configured), then the handler.
func (s *Server) apiHandler(mux *http.ServeMux, pattern, endpoint string, h http.Handler) {
	if s.cfg.Guard != nil {
		h = s.cfg.Guard.Wrap(endpoint, h)
	}
	mux.Handle(pattern, s.route(endpoint, getOnly(s.ready(h))))
}
