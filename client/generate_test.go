package client

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeMatchesTheDocument: api.gen.go is what oapi-codegen
// makes of internal/api/openapi.json now; a document changed without
// `go generate ./client` (or clients/generate.sh) fails here.
func TestGeneratedCodeMatchesTheDocument(t *testing.T) {
	line := generateLine(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "api.gen.go")
	// The same settings, written elsewhere (-o does not override a config's output).
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("output: api.gen.go"), []byte("output: "+out), 1)
	if err := os.WriteFile(filepath.Join(dir, "cfg.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(strings.Replace(line, "oapi-codegen.yaml", filepath.Join(dir, "cfg.yaml"), 1))[1:]
	cmd := exec.Command("go", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("api.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("api.gen.go is not what internal/api/openapi.json generates: run `go generate ./client` (or clients/generate.sh) and commit the result")
	}
}

// generateLine is generate.go's go:generate command.
func generateLine(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(src), "\n") {
		if cmd, ok := strings.CutPrefix(l, "//go:generate "); ok {
			return cmd
		}
	}
	t.Fatal("generate.go has no go:generate line")
	return ""
}
