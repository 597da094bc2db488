package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refusalBuilder is the one file that makes 429s: every other surface
// answers a refusal through the access.Refusal it builds (Write, or Status
// and SetHeaders on an answer the surface draws itself: a page, an image).
const refusalBuilder = "internal/access/refusal.go"

// tooManyCodes are the problem codes of the contract that answer 429.
var tooManyCodes = []string{"rate_limited", "daily_limit_exceeded"}

// TestOnlyTheRefusalBuilderWrites429: no non-test file of the service but
// the refusal builder passes 429 (http.StatusTooManyRequests) to
// WriteHeader or http.Error, or builds a 429 problem (problem.RateLimited,
// problem.DailyLimitExceeded or their codes as strings, problem.New or a
// problem.Problem with status 429). Package problem, which defines the
// codes, is exempt. A status held in a variable is beyond an AST scan: a
// surface that draws its own refusal passes the Refusal's Status.
func TestOnlyTheRefusalBuilderWrites429(t *testing.T) {
	builds, files := 0, 0
	root := filepath.Join("..", "..")
	for _, top := range []string{"cmd", "internal"} {
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
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if strings.HasPrefix(rel, "internal/problem/") {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			files++
			s := scan{http: importName(f, "net/http"), problem: importName(f, module+"internal/problem")}
			ast.Inspect(f, func(n ast.Node) bool {
				what := s.tooMany(n)
				switch {
				case what == "":
				case rel == refusalBuilder:
					builds++
				default:
					t.Errorf("%s:%d: %s: only %s writes a 429; answer with an access.Refusal (TooMany)", rel, fset.Position(n.Pos()).Line, what, refusalBuilder)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("scanned only %d files; has the layout moved?", files)
	}
	if builds == 0 {
		t.Fatalf("%s builds no 429: has the refusal builder moved?", refusalBuilder)
	}
}

// importName is the name a file refers to the package path by: its alias,
// or the last element of the path; "" when the file does not import it.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndexByte(path, '/')+1:]
		}
	}
	return ""
}

// scan finds the 429s of one file, which names net/http and package
// problem as http and problem ("" when it does not import them).
type scan struct{ http, problem string }

// tooMany says how n writes or builds a 429, or "" when it does not.
func (s scan) tooMany(n ast.Node) string {
	switch n := n.(type) {
	case *ast.CallExpr:
		sel, ok := n.Fun.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		switch {
		case sel.Sel.Name == "WriteHeader" && len(n.Args) == 1 && s.is429(n.Args[0]):
			return "WriteHeader(429)"
		case s.isPkg(sel, s.http, "Error") && len(n.Args) == 3 && s.is429(n.Args[2]):
			return "http.Error(..., 429)"
		case s.isPkg(sel, s.problem, "New") && len(n.Args) > 0 && s.is429(n.Args[0]):
			return "problem.New(429, ...)"
		}
	case *ast.SelectorExpr:
		if s.isPkg(n, s.problem, "RateLimited") || s.isPkg(n, s.problem, "DailyLimitExceeded") {
			return "problem." + n.Sel.Name
		}
	case *ast.CompositeLit:
		if sel, ok := n.Type.(*ast.SelectorExpr); ok && s.isPkg(sel, s.problem, "Problem") {
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Status") && s.is429(kv.Value) {
					return "problem.Problem{Status: 429}"
				}
			}
		}
	case *ast.BasicLit:
		if n.Kind != token.STRING {
			return ""
		}
		v, err := strconv.Unquote(n.Value)
		if err != nil {
			return ""
		}
		for _, code := range tooManyCodes {
			if v == code || strings.Contains(v, strconv.Quote(code)) {
				return "the problem code " + code
			}
		}
	}
	return ""
}

// is429 reports whether e is the constant 429, spelled as a number or as
// net/http's name.
func (s scan) is429(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT && e.Value == "429"
	case *ast.SelectorExpr:
		return s.isPkg(e, s.http, "StatusTooManyRequests")
	case *ast.ParenExpr:
		return s.is429(e.X)
	}
	return false
}

// isPkg reports whether sel is pkg.name, for the package a file names pkg.
func (s scan) isPkg(sel *ast.SelectorExpr, pkg, name string) bool {
	return pkg != "" && sel.Sel.Name == name && isIdent(sel.X, pkg)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
