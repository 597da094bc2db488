package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/mcp"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/view"
)

// keyHeader sends a key with every request of a client.
type keyHeader struct {
	name, value string
	next        http.RoundTripper
}

func (k keyHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(k.name, k.value)
	return k.next.RoundTrip(r)
}

// httpFixture is the composed server with a Guard over a SQLite key store.
type httpFixture struct {
	url   string
	db    *sqlite.DB
	meter *meter.Meter
}

func newHTTPFixture(t *testing.T, tiers apikey.Tiers) *httpFixture {
	t.Helper()
	return newHTTPFixtureWith(t, tiers, func(g *access.Guard) mcp.Guard { return g })
}

// newHTTPFixtureWith is newHTTPFixture with the MCP handler's Guard made
// from the real one by wrap.
func newHTTPFixtureWith(t *testing.T, tiers apikey.Tiers, wrap func(*access.Guard) mcp.Guard, allowedHosts ...string) *httpFixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // a still clock: no window slides
	m := servetest.Meter(t, db, func() time.Time { return now })
	g, err := access.NewGuard(db, m, nil, access.Config{Tiers: tiers, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Guard, c.Caller, c.Usage = g, g, m
		c.MCP = func(ix *index.Holder, u view.Builder) http.Handler {
			return mcp.Handler(mcp.Config{Catalogue: ix, View: u, Version: "test", AllowedHosts: allowedHosts}, wrap(g))
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); g.Close(ctx); db.Close() })
	return &httpFixture{url: srv.URL + "/mcp", db: db, meter: m}
}

// key stores a new key of tier in state and returns its secret and prefix.
func (f *httpFixture) key(t *testing.T, tier apikey.Tier, state apikey.State) (string, string) {
	t.Helper()
	ctx := context.Background()
	secret, err := apikey.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := apikey.ParseKey(secret)
	if _, err := f.db.CreateKey(ctx, apikey.Key{Prefix: pk.Prefix, Hash: pk.Hash, Name: "mcp test", Tier: tier}); err != nil {
		t.Fatal(err)
	}
	if state != apikey.Active {
		if _, err := f.db.SetKeyState(ctx, pk.Prefix, state); err != nil {
			t.Fatal(err)
		}
	}
	return secret, pk.Prefix
}

// client connects the SDK's client over streamable HTTP with a header.
func (f *httpFixture) client(t *testing.T, header, value string) *mcpsdk.ClientSession {
	t.Helper()
	tr := &mcpsdk.StreamableClientTransport{Endpoint: f.url,
		HTTPClient: &http.Client{Transport: keyHeader{header, value, http.DefaultTransport}}}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestStreamableHTTP(t *testing.T) {
	f := newHTTPFixture(t, apikey.DefaultTiers())
	secret, prefix := f.key(t, apikey.Pro, apikey.Active)
	exercise(t, f.client(t, "Authorization", "Bearer "+secret))
	exercise(t, f.client(t, "X-API-Key", secret))

	// Every tool call is one request of endpoint mcp.<tool>.
	rep, err := f.meter.Report(context.Background(), prefix, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range mcp.Tools {
		if rep.Endpoints["mcp."+tool] == 0 {
			t.Errorf("no usage of mcp.%s: %v", tool, rep.Endpoints)
		}
	}
	// Per client: one good call and one of an unknown slug; the call
	// without a slug fails the input schema before it runs.
	if n := rep.Endpoints["mcp.get_perfume"]; n != 4 {
		t.Errorf("mcp.get_perfume counted %d times, want 4", n)
	}
	if rep.Endpoints["mcp"] != 0 {
		t.Errorf("the HTTP requests themselves were metered: %v", rep.Endpoints)
	}
}

func TestStreamableHTTPRefused(t *testing.T) {
	tiers := apikey.DefaultTiers()
	tiers[apikey.Free] = apikey.Limits{PerMinute: 2, PerDay: 1000}
	f := newHTTPFixture(t, tiers)
	revoked, _ := f.key(t, apikey.Free, apikey.Revoked)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"keyless", nil},
		{"revoked", []string{"X-API-Key", revoked}},
		{"revoked bearer", []string{"Authorization", "Bearer " + revoked}},
		{"invalid", []string{"X-API-Key", "fds_not-a-key"}},
	} {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("%s: %d %s, want a 401 problem", c.name, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}

	// Any method but POST is a 405 problem, whatever the key.
	for _, method := range []string{"GET", "DELETE"} {
		req, _ := http.NewRequest(method, f.url, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
			t.Errorf("%s /mcp: %d, Allow %q", method, res.StatusCode, res.Header.Get("Allow"))
		}
	}

	// Past the key's limit a tool call is a tool error saying when to retry;
	// the handshake and the listing cost nothing.
	free, _ := f.key(t, apikey.Free, apikey.Active)
	cs := f.client(t, "X-API-Key", free)
	for i := range 3 {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "list_accords", Arguments: map[string]any{"limit": 1}})
		if err != nil {
			t.Fatalf("call %d: protocol error %v", i, err)
		}
		if i < 2 && res.IsError {
			t.Fatalf("call %d refused: %s", i, text(res))
		}
		if i == 2 && (!res.IsError || !strings.Contains(text(res), "retry after")) {
			t.Errorf("call past the limit: error %v %q", res.IsError, text(res))
		}
	}
}

// countingGuard counts the calls the MCP handler makes of the Guard.
type countingGuard struct {
	*access.Guard
	checks, admissions atomic.Int64
}

func (c *countingGuard) Check(ctx context.Context, call access.Call) (access.Pass, *access.Refusal) {
	c.checks.Add(1)
	return c.Guard.Check(ctx, call)
}

func (c *countingGuard) AdmitPass(ctx context.Context, p access.Pass, endpoint string) (access.Admission, *access.Refusal) {
	c.admissions.Add(1)
	return c.Guard.AdmitPass(ctx, p, endpoint)
}

// countPosts counts the POST requests a client sends.
type countPosts struct {
	n    *atomic.Int64
	next http.RoundTripper
}

func (c countPosts) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		c.n.Add(1)
	}
	return c.next.RoundTrip(r)
}

// TestKeyCheckedOncePerRequest: each POST /mcp has its key checked once,
// and each tool call it carries is admitted on that check, not checked
// again.
func TestKeyCheckedOncePerRequest(t *testing.T) {
	var g *countingGuard
	f := newHTTPFixtureWith(t, apikey.DefaultTiers(), func(real *access.Guard) mcp.Guard {
		g = &countingGuard{Guard: real}
		return g
	})
	secret, prefix := f.key(t, apikey.Pro, apikey.Active)
	var posts atomic.Int64
	tr := &mcpsdk.StreamableClientTransport{Endpoint: f.url, HTTPClient: &http.Client{
		Transport: countPosts{&posts, keyHeader{"X-API-Key", secret, http.DefaultTransport}}}}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const calls = 3
	for range calls {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "list_accords", Arguments: map[string]any{"limit": 1}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %s", err, text(res))
		}
	}
	if g.checks.Load() != posts.Load() || g.admissions.Load() != calls {
		t.Errorf("%d POSTs: %d key checks, %d tool admissions; want one check a POST and %d admissions", posts.Load(), g.checks.Load(), g.admissions.Load(), calls)
	}
	rep, err := f.meter.Report(context.Background(), prefix, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Endpoints["mcp.list_accords"] != calls {
		t.Errorf("mcp.list_accords metered %d times, want %d", rep.Endpoints["mcp.list_accords"], calls)
	}
}
