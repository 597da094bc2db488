// Package mcpclient drives the service's MCP server with a client that is
// not ours: the official TypeScript SDK (@modelcontextprotocol/sdk, from
// npm into a temporary directory, never committed), over stdio (`fragrance
// mcp`) and over streamable HTTP (`POST /mcp` of `fragrance serve`, with a
// key). It lists the tools, calls each one (the SDK checks each answer
// against its tool's output schema), makes a mistake a model makes, reads
// a perfume resource and lists the prompts. It runs when
// FRAGRANCE_TEST_MCPCLIENT=1 (.ci/run sets it) and needs node and npm.
//
//	FRAGRANCE_TEST_MCPCLIENT=1 go test ./test/mcpclient -v
package mcpclient

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/testbin"
)

var tools = []string{"search_perfumes", "get_perfume", "similar_perfumes", "find_dupes", "match_perfumes",
	"resolve_perfume", "list_brands", "list_notes", "list_accords", "get_perfumer", "get_perfumes", "recommend_perfumes"}

type summary struct {
	Tools     []string       `json:"tools"`
	Called    map[string]int `json:"called"`
	Errors    []string       `json:"errors"`
	BadAccord string         `json:"badAccord"`
	Resource  string         `json:"resource"`
	Prompts   []string       `json:"prompts"`
}

func TestOfficialClient(t *testing.T) {
	if os.Getenv("FRAGRANCE_TEST_MCPCLIENT") != "1" {
		t.Skip("set FRAGRANCE_TEST_MCPCLIENT=1 to drive the MCP server with the npm SDK's client")
	}
	dir := t.TempDir()
	modules := os.Getenv("FRAGRANCE_MCP_SDK_DIR") // a directory where npm installed @modelcontextprotocol/sdk
	if modules == "" {
		modules = filepath.Join(dir, "npm")
		cmd := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", modules, "@modelcontextprotocol/sdk")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install @modelcontextprotocol/sdk: %v\n%s", err, out)
		}
	}
	// node resolves packages from the script's directory upwards.
	script, err := os.ReadFile("client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(modules, "client.mjs")
	if err := os.WriteFile(client, script, 0o644); err != nil {
		t.Fatal(err)
	}

	bin := testbin.Build(t, dir)
	db := filepath.Join(dir, "mcp.db")
	base, _ := testbin.Serve(t, bin, "--db", db)
	out, err := exec.Command(bin, "keys", "create", "--db", db, "--tier", "pro", "--email", "mcp@example.com").Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]

	for _, tc := range []struct{ mode, a, b string }{{"stdio", bin, db}, {"http", base, key}} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command("node", client, tc.mode, tc.a, tc.b)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node client.mjs %s: %v\n%s", tc.mode, err, stderr.String())
			}
			var s summary
			if err := json.Unmarshal(out, &s); err != nil {
				t.Fatalf("the client printed %q: %v", out, err)
			}
			for _, name := range tools {
				if !slices.Contains(s.Tools, name) {
					t.Errorf("tool %s not listed (tools: %v)", name, s.Tools)
				}
				if s.Called[name] == 0 {
					t.Errorf("tool %s gave no structured answer", name)
				}
			}
			for _, e := range s.Errors {
				t.Error(e)
			}
			if !strings.Contains(s.BadAccord, `did you mean "vanilla"`) {
				t.Errorf("an unknown accord answered %q", s.BadAccord)
			}
			if !strings.HasPrefix(s.Resource, "# ") || !strings.Contains(s.Resource, "Sauvage") {
				t.Errorf("perfume://dior-sauvage reads %q", s.Resource)
			}
			if len(s.Prompts) == 0 {
				t.Error("no prompts")
			}
			t.Logf("%s: %d tools, answers of %v bytes; the resource begins %q", tc.mode, len(s.Tools), s.Called, s.Resource[:min(60, len(s.Resource))])
		})
	}
}
