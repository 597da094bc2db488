package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Guard is what the HTTP transport needs of the access layer: its plain
// admission calls (access.Guard meets it).
type Guard interface {
	// CallOf reads who sends a request and from where, as /api reads it.
	CallOf(r *http.Request, endpoint string) access.Call
	// Check checks the key of a call and refuses it as /api would (401
	// missing, invalid or revoked, 403 suspended, 503 fail closed).
	Check(ctx context.Context, c access.Call) (access.Pass, *access.Refusal)
	// AdmitPass admits, limits and meters one call of endpoint by a key
	// that passed Check, without checking the key again.
	AdmitPass(ctx context.Context, p access.Pass, endpoint string) (access.Admission, *access.Refusal)
}

// Endpoint is the name POST /mcp is known by; a tool call is metered as
// Endpoint + "." + its tool.
const Endpoint = "mcp"

// Handler is POST /mcp: the streamable-HTTP transport (stateless, JSON
// answers) behind g. The key is checked once, before any message is read;
// each tool call is then admitted, limited and metered by g as one request
// of endpoint mcp.<tool>, and a refusal comes back as a tool error; a
// resources/read likewise as mcp.resource, its refusal a JSON-RPC error.
// Over a loopback connection only loopback's names and cfg.AllowedHosts
// are served (allowHosts).
func Handler(cfg Config, g Guard) http.Handler {
	h := mcpsdk.NewStreamableHTTPHandler(func(r *http.Request) *mcpsdk.Server {
		c := cfg
		c.Gate = passGate(r.Context(), g)
		return New(c)
	}, &mcpsdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	return postOnly(allowHosts(cfg.AllowedHosts, checkKey(g, h)))
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

// passKey is the context key of the Pass checkKey gives a request.
type passKey struct{}

// checkKey checks the request's key before h reads anything, refusing it
// as /api would, and hands h the Pass in the request's context.
func checkKey(g Guard, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, f := g.Check(r.Context(), g.CallOf(r, Endpoint))
		if f != nil {
			f.Write(w, r)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), passKey{}, p)))
	})
}

// passGate admits each tool call of the request whose context is ctx on
// the Pass checkKey gave it; a request without one (never through
// Handler) has every call refused.
func passGate(ctx context.Context, g Guard) Gate {
	p, checked := ctx.Value(passKey{}).(access.Pass)
	return func(ctx context.Context, tool string, call func() error) error {
		if !checked {
			return errors.New("refused: the key of this request was not checked")
		}
		a, f := g.AdmitPass(ctx, p, Endpoint+"."+tool)
		if f != nil {
			return refusal(f)
		}
		err := call()
		a.Done(statusOf(err))
		return err
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
// model reads: its status, what to do, and when to retry.
func refusal(f *access.Refusal) error {
	msg := f.Problem.Detail
	if msg == "" {
		msg = f.Problem.Title
	}
	if msg == "" {
		msg = http.StatusText(f.Status())
	}
	if f.RetryAfter > 0 {
		return fmt.Errorf("refused (%d): %s; retry after %d seconds", f.Status(), msg, f.RetryAfterSeconds())
	}
	return fmt.Errorf("refused (%d): %s", f.Status(), msg)
}
