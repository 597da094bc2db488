package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/mcp"
)

// TestResourceReadsCountAgainstTheKey: reading a perfume's resource reads
// the catalogue as a tool call does, so it counts against the key's
// windows and is refused past them; the listings cost nothing.
func TestResourceReadsCountAgainstTheKey(t *testing.T) {
	tiers := apikey.DefaultTiers()
	tiers[apikey.Free] = apikey.Limits{PerMinute: 2, PerDay: 1000}
	f := newHTTPFixture(t, tiers)
	free, prefix := f.key(t, apikey.Free, apikey.Active)
	cs := f.client(t, "X-API-Key", free)
	ctx := context.Background()
	for range 3 {
		if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	slug := firstSlug(t, cs)
	uri := mcp.ResourcePrefix + slug
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri}); err != nil {
		t.Fatalf("a read within the key's limit (its second call): %v", err)
	}
	_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
	if err == nil || !strings.Contains(err.Error(), "retry after") {
		t.Fatalf("read past the key's limit: %v, want a refusal saying when to retry", err)
	}
	// A tool call finds the windows the reads filled.
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "list_accords", Arguments: map[string]any{"limit": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("tool call after the reads: %v, error %v", err, res != nil && res.IsError)
	}
	f.meter.Flush(ctx)
	rep, err := f.meter.Report(ctx, prefix, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Endpoints["mcp.resource"]; n != 2 {
		t.Errorf("mcp.resource metered %d times, want 2 (one read served, one refused): %v", n, rep.Endpoints)
	}
}

// firstSlug is the slug of the first perfume a search finds (one call).
func firstSlug(t *testing.T, cs *mcpsdk.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearch, Arguments: map[string]any{"query": "rose", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %v", err, res)
	}
	m, _ := res.StructuredContent.(map[string]any)
	data, _ := m["data"].([]any)
	if len(data) == 0 {
		t.Fatalf("search found nothing: %v", res.StructuredContent)
	}
	return data[0].(map[string]any)["slug"].(string)
}

// TestPublicHostBehindSameHostProxy: a reverse proxy on the same machine
// that keeps the public Host reaches the server over loopback with a Host
// that is not loopback's; the host of --base-url is allowed, any other
// Host over loopback is still refused (DNS rebinding).
func TestPublicHostBehindSameHostProxy(t *testing.T) {
	f := newHTTPFixtureWith(t, apikey.DefaultTiers(), func(g *access.Guard) mcp.Guard { return g }, "fragrance.example")
	secret, _ := f.key(t, apikey.Pro, apikey.Active)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		host string
		want int
	}{
		{"fragrance.example", http.StatusOK},
		{"FRAGRANCE.example:443", http.StatusOK},
		{"localhost", http.StatusOK},
		{"attacker.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(body))
		req.Host = c.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-API-Key", secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %s over loopback: %d, want %d", c.host, res.StatusCode, c.want)
		}
	}
}
