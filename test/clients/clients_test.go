// Package clients runs the tests of the three clients in clients/ and
// client/ (Go, Python, TypeScript) against the real binary: it builds
// it, serves a fresh database (the small test catalogue), makes the keys
// the tests need, and runs each client's own suite with the server's
// address in its environment (see client/e2e_test.go for the variables).
// Each client gets a file of its own to import between its full and its
// incremental sync. It runs when FRAGRANCE_TEST_CLIENTS=1 (.ci/run sets
// it) and needs python3, node and npm (the TypeScript client's locked
// packages install into a temporary copy of it).
//
//	FRAGRANCE_TEST_CLIENTS=1 go test ./test/clients -v
package clients

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/testbin"
)

func TestClientsAgainstTheBinary(t *testing.T) {
	if os.Getenv("FRAGRANCE_TEST_CLIENTS") != "1" {
		t.Skip("set FRAGRANCE_TEST_CLIENTS=1 to run the clients' suites against the built binary")
	}
	root := moduleRoot(t)
	dir := t.TempDir()
	bin := testbin.Build(t, dir)
	db := filepath.Join(dir, "clients.db")
	seed := filepath.Join(root, "cmd", "fragrance", "testdata", "catalogue-small.jsonl.gz")
	base, _ := testbin.Serve(t, bin, "--db", db, "--seed-file", seed)
	key := newKey(t, bin, db, "pro")
	records := readRecords(t, seed)
	slugs := storedSlugs(t, bin, db, dir)

	suites := []struct {
		name string
		cmd  func(t *testing.T) *exec.Cmd
	}{
		{"go", func(*testing.T) *exec.Cmd {
			c := exec.Command("go", "test", "-count=1", "-v", "-run", "TestEveryEndpoint|TestProblemsAreTypedErrors|TestSyncFullThenIncremental", "./client")
			c.Dir = root
			return c
		}},
		{"python", func(*testing.T) *exec.Cmd {
			c := exec.Command("python3", "-m", "unittest", "discover", "-v", "-s", "tests")
			c.Dir = filepath.Join(root, "clients", "python")
			c.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "clients", "python", "src"))
			return c
		}},
		{"typescript", func(t *testing.T) *exec.Cmd { return typescriptSuite(t, root, dir) }},
	}
	for i, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			file, changed := importFile(t, dir, s.name, records[10*(i+1):10*(i+1)+2], slugs)
			cmd := s.cmd(t)
			if cmd.Env == nil {
				cmd.Env = os.Environ()
			}
			cmd.Env = append(cmd.Env, "FRAGRANCE_TEST_URL="+base, "FRAGRANCE_API_KEY="+key,
				"FRAGRANCE_TEST_LIMITED_KEY="+limitedKey(t, bin, db), "FRAGRANCE_TEST_BIN="+bin, "FRAGRANCE_TEST_DB="+db,
				"FRAGRANCE_TEST_IMPORT="+file, "FRAGRANCE_TEST_CHANGED="+strings.Join(changed, ","))
			out, err := cmd.CombinedOutput()
			t.Logf("%s\n%s", strings.Join(cmd.Args, " "), out)
			if err != nil {
				t.Fatalf("the %s client's suite failed: %v", s.name, err)
			}
		})
	}
}

// typescriptSuite copies the TypeScript client into a temporary folder,
// installs its locked dependencies there (npm ci: nothing from npm lands
// in the repository), checks that npm pack ships only the built client,
// its types and sources, the licence and the README, and returns the
// command that runs its tests.
func typescriptSuite(t *testing.T, root, dir string) *exec.Cmd {
	t.Helper()
	src := filepath.Join(root, "clients", "typescript")
	pkg := filepath.Join(dir, "typescript")
	if err := os.CopyFS(pkg, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	run(t, pkg, "npm", "ci", "--no-audit", "--no-fund")
	out := runOut(t, pkg, "npm", "pack", "--dry-run", "--json")
	var packed []struct {
		Files []struct{ Path string } `json:"files"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &packed); err != nil || len(packed) != 1 {
		t.Fatalf("npm pack --dry-run: %v\n%s", err, out)
	}
	var files []string
	for _, f := range packed[0].Files {
		files = append(files, f.Path)
	}
	if got := strings.Join(files, " "); got != "LICENSE README.md dist/index.d.ts dist/index.js dist/schema.d.ts package.json src/index.ts src/schema.d.ts" {
		t.Errorf("npm pack ships %s", got)
	}
	c := exec.Command("npm", "test")
	c.Dir = pkg
	c.Env = append(os.Environ(), "FRAGRANCE_OPENAPI_DOC="+filepath.Join(root, "internal", "api", "openapi.json"))
	return c
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func runOut(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// newKey makes a key of tier and returns it.
func newKey(t *testing.T, bin, db, tier string) string {
	t.Helper()
	out, err := exec.Command(bin, "keys", "create", "--db", db, "--tier", tier, "--email", "clients@example.com").Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// limitedKey makes a key of one request a minute.
func limitedKey(t *testing.T, bin, db string) string {
	t.Helper()
	key := newKey(t, bin, db, "free")
	if out, err := exec.Command(bin, "keys", "limits", "--db", db, "--per-minute", "1", key).CombinedOutput(); err != nil {
		t.Fatalf("keys limits: %v\n%s", err, out)
	}
	return key
}

// readRecords reads the lines of a gzipped JSON Lines catalogue.
func readRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// storedSlugs maps the stored perfumes' ids to their slugs (from export).
func storedSlugs(t *testing.T, bin, db, dir string) map[int64]string {
	t.Helper()
	file := filepath.Join(dir, "export.jsonl")
	if out, err := exec.Command(bin, "export", "--db", db, "--out", file).CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	slugs := map[int64]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			ID   int64  `json:"id"`
			Slug string `json:"slug"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		slugs[r.ID] = r.Slug
	}
	return slugs
}

// importFile writes the records renamed "Changed ..." for suite, and
// returns the file and their slugs in the file's order (the feed's).
func importFile(t *testing.T, dir, suite string, recs []map[string]any, slugs map[int64]string) (string, []string) {
	t.Helper()
	var lines, changed []string
	for _, r := range recs {
		c := map[string]any{}
		for k, v := range r {
			c[k] = v
		}
		c["name"] = "Changed by " + suite + " " + r["name"].(string)
		b, _ := json.Marshal(c)
		lines = append(lines, string(b))
		changed = append(changed, slugs[int64(r["fragranticaId"].(float64))])
	}
	file := filepath.Join(dir, suite+".jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, changed
}
