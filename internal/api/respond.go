package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON encodes v as the 200 answer. The body is encoded before the
// header is written, so an encoding failure can still become a 500.
func writeJSON(w http.ResponseWriter, v any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(buf.Bytes())
	if errors.Is(err, http.ErrBodyNotAllowed) { // HEAD
		err = nil
	}
	return err
}

// handle adapts a handler that returns an error: the error becomes a problem
// answer, 5xx logged with detail and shown to the client without it.
func (s *Server) handle(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// writeError maps an error to its problem answer.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *catalog.ParamError
	var pes catalog.ParamErrors
	switch {
	case errors.As(err, &pes):
		problem.Write(w, r, invalid(pes))
	case errors.As(err, &pe):
		problem.Write(w, r, invalid(catalog.ParamErrors{pe}))
	case errors.Is(err, catalog.ErrNotFound):
		problem.Write(w, r, problem.New(http.StatusNotFound, problem.NotFound, "Not found", err.Error()))
	case errors.Is(err, catalog.ErrUnavailable):
		s.log.ErrorContext(r.Context(), "unavailable", "err", err, "path", r.URL.Path)
		problem.Write(w, r, problem.New(http.StatusServiceUnavailable, problem.Unavailable, "Service unavailable",
			"a backing service cannot be reached; try again shortly"))
	default:
		s.log.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path)
		problem.Write(w, r, problem.New(http.StatusInternalServerError, problem.Internal, "Internal server error",
			"the request failed on our side; it has been logged"))
	}
}

// invalid is the 400 problem for a list of invalid parameters.
func invalid(pes catalog.ParamErrors) *problem.Problem {
	p := problem.New(http.StatusBadRequest, problem.InvalidParameter, "Invalid parameter", "")
	for i, e := range pes {
		p.Errors = append(p.Errors, problem.FieldError{Parameter: e.Parameter, Message: e.Message})
		if i > 0 {
			p.Detail += "; "
		}
		p.Detail += e.Parameter + ": " + e.Message
	}
	return p
}

// notFound answers unknown paths under /api.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	problem.Write(w, r, problem.New(http.StatusNotFound, problem.NotFound, "Not found",
		"no endpoint at "+r.URL.Path+"; see /api/openapi.json"))
	return nil
}

// pageNotFound answers unknown paths outside /api when no website is mounted.
func (s *Server) pageNotFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// writeBody encodes v after the status has been written.
func writeBody(w http.ResponseWriter, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
