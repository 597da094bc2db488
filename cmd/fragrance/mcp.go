package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/mcp"
	"github.com/fragrance-data/fragrance/internal/neighbours"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site"
)

// defaultMCPBaseURL is the base of the links in stdio answers when
// --base-url is not given: a service on its default address.
const defaultMCPBaseURL = "http://localhost:8080"

// runMCP serves the MCP server over stdio (JSON-RPC lines on stdin and
// stdout) for desktop and IDE clients: read-only and without a key, since
// whoever can run the binary can read the database.
func runMCP(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("mcp", "mcp [--db PATH] [--base-url URL] [--curated FILE]\n\n"+
		"Runs the MCP (Model Context Protocol) server over stdio for desktop and IDE clients:\n"+
		"the catalogue of the database, read-only, without a key. Logs go to stderr.", cio)
	dsn := f.DB()
	baseURL := f.String("base-url", defaultMCPBaseURL, "public base URL of the service, used in the buyUrl and image URLs of answers")
	curated := f.String("curated", "", "CSV file of curated similar pairs (slug,slug), as serve takes")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() > 0 {
		fmt.Fprintln(cio.stderr, "fragrance mcp: takes no arguments")
		return errUsage
	}
	base := strings.TrimRight(*baseURL, "/")
	if err := checkBaseURL("--base-url", base); err != nil {
		return err
	}
	store, err := openExistingStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	ref, err := bundled.LoadReference()
	if err != nil {
		return err
	}
	ix, err := buildIndex(ctx, store, ref, *curated)
	if err != nil {
		return err
	}
	// The similar and dupes lists a server stored for this catalogue, if
	// any; the rest are ranked on demand (a client's session is too short
	// to rank them all).
	lists := neighbours.Load(ctx, ix, store, nil)
	holder, urls := index.NewHolder(ix), view.NewBuilder(base, nil, ref.Color)
	// The perfume resource is the website's Markdown twin, word for word.
	ground, err := web.New(web.Config{Catalogue: holder, BaseURL: base})
	if err != nil {
		return err
	}
	public, err := site.New(site.Config{Web: ground, Catalogue: holder, View: urls})
	if err != nil {
		return err
	}
	s := mcp.New(mcp.Config{Catalogue: holder, View: urls, Version: version, PerfumeMarkdown: public.PerfumeMarkdown})
	fmt.Fprintf(cio.stderr, "fragrance mcp: %d perfumes from %s (neighbour lists: %d of %d chunks stored), serving MCP on stdio\n",
		ix.Len(), redactDSN(*dsn), lists, ix.NeighbourChunks())
	err = mcp.ServeStdio(ctx, s, cio.stdin, cio.stdout)
	if ctx.Err() != nil || err == io.EOF {
		return nil // the client closed stdin, or a signal
	}
	return err
}
