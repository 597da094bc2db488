package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/mcp"
)

// TestMCPStdio runs `fragrance mcp` in-process and talks to it with the
// SDK's client over its stdin and stdout.
func TestMCPStdio(t *testing.T) {
	db := newDB(t, "mcp.db")
	runCmd(t, "import", "--db", db, smallCatalogue)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		err := run(context.Background(), []string{"mcp", "--db", db, "--base-url", "https://fragrance.example"}, noEnv, inR, outW, &stderr)
		outW.Close()
		done <- err
	}()
	ctx := context.Background()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != len(mcp.Tools) {
		t.Fatalf("tools: %v %v", lt, err)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "resolve_perfume", Arguments: map[string]any{"text": "sauvage dior"}})
	if err != nil || res.IsError {
		t.Fatalf("resolve_perfume: %+v %v", res, err)
	}
	c := res.StructuredContent.(map[string]any)["candidates"].([]any)
	if len(c) == 0 || c[0].(map[string]any)["slug"] != "dior-sauvage" {
		t.Errorf("resolve_perfume: %v", c)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "get_perfume", Arguments: map[string]any{"slug": "dior-sauvage"}})
	if err != nil || res.IsError {
		t.Fatalf("get_perfume: %+v %v", res, err)
	}
	if buy := res.StructuredContent.(map[string]any)["buyUrl"]; buy != "https://fragrance.example/goto/dior-sauvage" {
		t.Errorf("buyUrl %v", buy)
	}
	cs.Close() // closes stdin: the command ends cleanly
	if err := <-done; err != nil {
		t.Errorf("fragrance mcp: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serving MCP on stdio") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestServeMCPNeedsKey: serve mounts POST /mcp behind the key check.
func TestServeMCPNeedsKey(t *testing.T) {
	db := newDB(t, "serve-mcp.db")
	base, stop := startServe(t, noEnv, "--db", db, "--seed-file", smallCatalogue)
	defer stop()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp without a key: %d, want 401", res.StatusCode)
	}
}
