package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Guard is what the HTTP transport needs of the access layer.
type Guard interface {
	// Authenticate checks the request's key before h reads anything, and
	// refuses it as /api would (401 missing, invalid or revoked).
	Authenticate(endpoint string, h http.Handler) http.Handler
	// Wrap admits, limits and meters one request of endpoint.
	Wrap(endpoint string, h http.Handler) http.Handler
}

// Endpoint is the name POST /mcp is known by; a tool call is metered as
// Endpoint + "." + its tool.
const Endpoint = "mcp"

// Handler is POST /mcp: the streamable-HTTP transport (stateless, JSON
// answers) behind g. The key is checked before any message is read; each
// tool call is admitted, limited and metered by g as one request of
// endpoint mcp.<tool>, and a refusal comes back as a tool error.
func Handler(cfg Config, g Guard) http.Handler {
	h := mcpsdk.NewStreamableHTTPHandler(func(r *http.Request) *mcpsdk.Server {
		c := cfg
		c.Gate = guardGate(g, r)
		return New(c)
	}, &mcpsdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return postOnly(g.Authenticate(Endpoint, h))
}

// postOnly answers 405 method_not_allowed to any method but POST, before
// the key check (as /api checks the method first).
func postOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			problem.Write(w, r, problem.Of(problem.MethodNotAllowed,
				r.Method+" is not allowed here; the MCP endpoint takes POST (the stateless streamable-HTTP transport)"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// guardGate runs each tool call of request r through g.Wrap, on a copy of
// r without its body: the key, client address and headers are r's.
func guardGate(g Guard, r *http.Request) Gate {
	return func(ctx context.Context, tool string, call func() error) error {
		var (
			ran     bool
			callErr error
		)
		inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			ran = true
			callErr = call()
			w.WriteHeader(statusOf(callErr))
		})
		r2 := r.Clone(ctx)
		r2.Method = http.MethodPost
		r2.Body, r2.ContentLength = http.NoBody, 0
		rec := &recorder{header: http.Header{}}
		g.Wrap(Endpoint+"."+tool, inner).ServeHTTP(rec, r2)
		if ran {
			return callErr
		}
		return refusal(rec)
	}
}

// statusOf is the status a tool call is metered with.
func statusOf(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, errLoading):
		return http.StatusServiceUnavailable
	case errors.Is(err, catalog.ErrNotFound):
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// refusal turns the Guard's refusal of a tool call into the error the
// model reads.
func refusal(rec *recorder) error {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	_ = json.Unmarshal(rec.body, &p)
	msg := p.Detail
	if msg == "" {
		msg = p.Title
	}
	if msg == "" {
		msg = http.StatusText(rec.status)
	}
	if ra := rec.header.Get("Retry-After"); ra != "" {
		return fmt.Errorf("refused (%d): %s; retry after %s seconds", rec.status, msg, ra)
	}
	return fmt.Errorf("refused (%d): %s", rec.status, msg)
}

// recorder keeps what the Guard answers when it refuses a call.
type recorder struct {
	header http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if len(r.body) < 4096 {
		r.body = append(r.body, b...)
	}
	return len(b), nil
}

// Status is the status answered; 0 before any.
func (r *recorder) Status() int { return r.status }
