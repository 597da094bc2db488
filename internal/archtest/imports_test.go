package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/fragrance-data/fragrance/"

// Package kinds of the layout.
var (
	// contracts hold domain types and the interfaces the backends meet:
	// they import the standard library and the domain (catalog) only.
	contracts = []string{"internal/catalog", "internal/apikey", "internal/account", "internal/admin", "internal/usage", "internal/imgstore"}
	// backends meet the contracts over an outside dependency; only the
	// command wires them in (tests may use them).
	backends = []string{"internal/sqlite", "internal/postgres", "internal/imgfiles", "internal/access/ratelimit/redislimit"}
	// testSupport is imported by tests only.
	testSupport = []string{"internal/storetest", "internal/servetest", "internal/access/ratelimit/limitertest",
		"internal/access/ratelimit/redislimit/redistest", "internal/images/cutout/cutouttest", "internal/testclock", "internal/testbin", "internal/racedetect", "internal/web/areatest", "internal/web/site/tplgen"}
	// areas are the site's areas, each standing on the ground (internal/web)
	// beside the others; what the signed-in ones hold alike is
	// internal/web/session's, which serves them and knows none of them.
	areas = []string{"internal/web/site", "internal/web/docs", "internal/web/portal", "internal/web/dashboard"}
	// pure packages compute and know nothing of HTTP.
	pure = []string{"internal/catalog", "internal/apikey", "internal/account", "internal/admin", "internal/usage", "internal/imgstore", "internal/search",
		"internal/index", "internal/index/ranking", "internal/view", "internal/jsonenc", "internal/importer", "internal/evaluation", "internal/describe"}
	// ranking is what ranks perfumes (the similarity formula, the dupes
	// and line rules, the kept lists' format): only the index ranks, so
	// only the index imports it, and every surface ranks through it.
	ranking = "internal/index/ranking"
)

// pkg is a package of the module and what its non-test files import.
type pkg struct {
	path    string // relative to the module, e.g. internal/api
	imports []string
}

// loadPackages reads the imports of every package under cmd/, internal/
// and client/.
func loadPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]*pkg{}
	for _, top := range []string{"cmd", "internal", "client"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			rel = filepath.ToSlash(rel)
			p := out[rel]
			if p == nil {
				p = &pkg{path: rel}
				out[rel] = p
			}
			for _, imp := range f.Imports {
				p.imports = append(p.imports, strings.Trim(imp.Path.Value, `"`))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 20 {
		t.Fatalf("found only %d packages; has the layout moved?", len(out))
	}
	return out
}

// project returns the module-relative path of an import of the project,
// or "" for an outside import.
func project(imp string) string {
	if rest, ok := strings.CutPrefix(imp, module); ok {
		return rest
	}
	return ""
}

func isStd(imp string) bool { return !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") }

func TestImportRules(t *testing.T) {
	for _, p := range loadPackages(t) {
		for _, imp := range p.imports {
			dep := project(imp)
			switch {
			case slices.Contains(contracts, p.path) && !isStd(imp) && dep != "internal/catalog" && !(p.path == "internal/account" && dep == "internal/apikey") && !(p.path == "internal/admin" && (dep == "internal/apikey" || imp == "golang.org/x/crypto/argon2" || imp == "rsc.io/qr")):
				t.Errorf("%s is a contract package and imports %s: only the standard library and internal/catalog (account: and apikey)", p.path, imp)
			case slices.Contains(backends, dep) && !strings.HasPrefix(p.path, "cmd/") && !slices.Contains(testSupport, p.path):
				t.Errorf("%s imports the backend %s: only cmd/ (and test support) wires backends", p.path, dep)
			case slices.Contains(testSupport, dep) && !slices.Contains(testSupport, p.path):
				t.Errorf("%s imports %s, which is for tests", p.path, dep)
			case slices.Contains(pure, p.path) && (imp == "net/http" || strings.HasPrefix(imp, "github.com/prometheus/")):
				t.Errorf("%s imports %s: it computes and knows nothing of HTTP", p.path, imp)
			case slices.Contains(areas, dep) && (slices.Contains(areas, p.path) || p.path == "internal/web/session" || p.path == "internal/web"):
				t.Errorf("%s imports the area %s: the areas stand side by side on the ground, and share only internal/web/session", p.path, dep)
			case dep != "" && strings.HasPrefix(dep, "cmd/"):
				t.Errorf("%s imports the command %s", p.path, dep)
			case p.path == "client" && !isStd(imp) && !strings.HasPrefix(imp, "github.com/oapi-codegen/runtime"):
				t.Errorf("client imports %s: the Go client people install imports only the standard library and oapi-codegen's runtime", imp)
			case dep == "client":
				t.Errorf("%s imports the Go client: the service never depends on its clients", p.path)
			case dep == ranking && p.path != "internal/index":
				t.Errorf("%s imports %s: only internal/index ranks perfumes; ask the index", p.path, dep)
			case strings.HasPrefix(p.path, "internal/images/") && dep == "internal/images":
				t.Errorf("%s imports internal/images: the image jobs' packages are used by the host, never the reverse", p.path)
			}
		}
	}
}

// TestArchitectureNamesEveryPackage: docs/architecture.md has a line for
// every package, so a new one cannot go undocumented.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:cmd/|internal/|client)[a-z0-9/]*?)/?`").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	for path := range loadPackages(t) {
		if !named[path] {
			t.Errorf("docs/architecture.md does not name %s", path)
		}
	}
}
