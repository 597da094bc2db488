// Package mcp is the Model Context Protocol server of the catalogue: typed
// tools (search, detail, similar, dupes, match, resolve, the lists, a
// perfumer), the resource template perfume://{slug} (the perfume as
// Markdown) and a prompt, built with the official Go SDK. It knows the
// catalogue only through the in-memory index and package view (the same
// answers and parameter rules as /api); over HTTP it knows the access layer
// only through the Guard contract, its plain admission calls: the key is
// checked once, before any message is read, and each tool call is admitted
// and metered as one request of endpoint mcp.<tool>.
package mcp

import (
	"context"
	"errors"
	"fmt"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// Gate runs one tool call: it may refuse it (a returned error the model
// reads, such as a rate limit with when to retry) or run call and meter it.
// A nil Gate runs every call (stdio: whoever runs the binary may read).
type Gate func(ctx context.Context, tool string, call func() error) error

// Config holds the server's dependencies. Catalogue and URLs are required.
type Config struct {
	Catalogue *index.Holder
	// View builds the answers' shapes, with their public URLs and accord colours.
	View view.Builder
	// PerfumeMarkdown renders a perfume as Markdown for the resource
	// perfume://{slug}; nil: a short text written from the view.
	PerfumeMarkdown func(slug string) (string, bool)
	// Version is the server's version as the MCP handshake reports it.
	Version string
	// Gate admits and meters each tool call and each other method that
	// reads the catalogue (resources/read); nil: none.
	Gate Gate
	// AllowedHosts are the Host names POST /mcp answers over a loopback
	// connection besides loopback's own (localhost, 127.0.0.1, [::1]): the
	// public host of --base-url, which a reverse proxy on the same machine
	// keeps. Any other Host over loopback is refused 403 (DNS rebinding).
	AllowedHosts []string
}

// New builds the MCP server: its tools, the resource template and the
// prompt.
func New(cfg Config) *mcpsdk.Server {
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "fragrance", Title: "Fragrance catalogue", Version: cfg.Version},
		&mcpsdk.ServerOptions{Instructions: instructions})
	t := &tools{cfg: cfg}
	if cfg.Gate != nil {
		s.AddReceivingMiddleware(gateReads(cfg.Gate))
	}
	t.register(s)
	addResources(s, t)
	addPrompts(s)
	return s
}

// instructions tell a model what the server is for.
const instructions = "A catalogue of perfumes with their accords, note pyramids, seasons, ratings, price tiers, " +
	"similar perfumes and cheaper alternatives. Tools take perfume slugs (such as \"creed-aventus\"): when you " +
	"only have a name, call resolve_perfume first. Lists are ranked best first."

// errLoading answers while the catalogue is not loaded yet.
var errLoading = errors.New("the catalogue is still loading; try again in a few seconds")

// index returns the catalogue in force, or an error a model can act on.
func (t *tools) index() (*index.Index, error) {
	ix := t.cfg.Catalogue.Load()
	if ix == nil {
		return nil, errLoading
	}
	return ix, nil
}

// explain rewrites an index error into a message a model can act on.
func explain(err error, what, slug string) error {
	var pe *catalog.ParamError
	var pes catalog.ParamErrors
	switch {
	case errors.As(err, &pes):
		msg := ""
		for i, e := range pes {
			if i > 0 {
				msg += "; "
			}
			msg += e.Parameter + ": " + e.Message
		}
		return errors.New(msg)
	case errors.As(err, &pe):
		return errors.New(pe.Parameter + ": " + pe.Message)
	case errors.Is(err, catalog.ErrNotFound):
		hint := "call resolve_perfume with its name to find the slug"
		if what == "perfumer" {
			hint = "a perfumer's slug is in the perfumers of get_perfume's answer"
		}
		return notFound(fmt.Sprintf("no %s with slug %q; %s", what, slug, hint))
	}
	return err
}

// notFound is a tool error about an unknown slug.
type notFound string

func (e notFound) Error() string { return string(e) }

// Is makes a notFound match catalog.ErrNotFound.
func (e notFound) Is(target error) bool { return target == catalog.ErrNotFound }
