package api

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var openAPIDoc []byte

// openAPI serves the OpenAPI 3.1 document (no key needed).
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(openAPIDoc)
}

// healthz answers 200 once the catalogue is loaded and 503 before, with the
// state of each component.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := Health{Ready: s.cfg.Catalogue.Load() != nil}
	if s.cfg.Health != nil {
		h = s.cfg.Health(r.Context())
		h.Ready = h.Ready && s.cfg.Catalogue.Load() != nil
	}
	out := struct {
		Status string `json:"status"`
		Health
		Perfumes int    `json:"perfumes"`
		Version  string `json:"version"`
	}{Status: "ok", Health: h, Version: s.cfg.Version}
	if ix := s.cfg.Catalogue.Load(); ix != nil {
		out.Perfumes = ix.Len()
	}
	w.Header().Set("Cache-Control", "no-store")
	if !h.Ready {
		out.Status = "starting"
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		writeBody(w, out)
		return
	}
	writeJSON(w, out)
}
