package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestMCPStdioMalformedLines: a line that is not JSON gets a JSON-RPC parse
// error (-32700), a JSON line that is no JSON-RPC message an invalid
// request (-32600), and the server goes on answering the lines after them.
func TestMCPStdioMalformedLines(t *testing.T) {
	db := newDB(t, "mcp.db")
	runCmd(t, "import", "--db", db, smallCatalogue)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		err := run(context.Background(), []string{"mcp", "--db", db}, noEnv, inR, outW, &stderr)
		outW.Close()
		done <- err
	}()
	go func() {
		for _, line := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`this is not json`,
			`{"jsonrpc":"2.0","id":2,"method":`,
			`{"hello":"world","id":7}`,
			``,
			`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		} {
			io.WriteString(inW, line+"\n")
		}
	}()
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	var parse, invalid int
	listed := false
	var seen strings.Builder
	dec := json.NewDecoder(outR)
	for !listed {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("reading the answers: %v; so far:\n%s\n%s", err, seen.String(), stderr.String())
		}
		fmt.Fprintln(&seen, m)
		switch {
		case code(m) == -32700 && m["id"] == nil:
			parse++
		case code(m) == -32600 && m["id"] == float64(7):
			invalid++
		case m["id"] == float64(3) && m["result"] != nil:
			listed = true
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("fragrance mcp: %v\n%s", err, stderr.String())
	}
	if parse != 2 || invalid != 1 {
		t.Errorf("parse errors %d (want 2), invalid requests %d (want 1) before the tools were listed:\n%s", parse, invalid, seen.String())
	}
}
