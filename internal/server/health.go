package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// healthz answers 200 once the catalogue is loaded and 503 before, with the
// state of each component.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ix := s.cfg.Catalogue.Load()
	h := Health{Ready: ix != nil}
	if s.cfg.Health != nil {
		h = s.cfg.Health(r.Context())
		h.Ready = h.Ready && ix != nil
	}
	out := struct {
		Status string `json:"status"`
		Health
		Perfumes int    `json:"perfumes"`
		Version  string `json:"version"`
	}{Status: "ok", Health: h, Version: s.cfg.Version}
	if ix != nil {
		out.Perfumes = ix.Len()
	}
	status := http.StatusOK
	switch {
	case !h.Ready:
		out.Status, status = "starting", http.StatusServiceUnavailable
	case h.Degraded:
		out.Status = "degraded"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(out)
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Type", "application/json; charset=utf-8")
	if status == http.StatusOK {
		hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
