package problem

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestWrite(t *testing.T) {
	p := New(http.StatusTooManyRequests, RateLimited, "Rate limit exceeded", "minute window full")
	p.Extra = map[string]any{"retryAfter": 3}
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/api/x", nil), p)
	if rec.Code != 429 || rec.Header().Get("Content-Type") != ContentType {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "/docs/errors#rate_limited", "title": "Rate limit exceeded", "status": 429.0,
		"detail": "minute window full", "code": "rate_limited", "error": "Rate limit exceeded", "retryAfter": 3.0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["errors"]; ok {
		t.Error("errors present without field errors")
	}
}

func TestWriteHead(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("HEAD", "/api/x", nil), New(404, NotFound, "Not found", ""))
	if rec.Body.Len() != 0 || rec.Code != 404 {
		t.Fatalf("HEAD wrote %d bytes, status %d", rec.Body.Len(), rec.Code)
	}
}

// TestCodesTable: every code constant of this package has exactly one
// entry in Codes, and Of gives its status and title.
func TestCodesTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "problem.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for i, name := range spec.(*ast.ValueSpec).Names {
				if name.Name == "ContentType" {
					continue
				}
				v, _ := strconv.Unquote(spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit).Value)
				consts = append(consts, v)
			}
		}
	}
	seen := map[string]int{}
	for _, c := range Codes {
		seen[c.Code]++
		if p := Of(c.Code, "x"); p.Status != c.Status || p.Title != c.Title || p.Code != c.Code {
			t.Errorf("Of(%s) = %+v", c.Code, p)
		}
		if c.Title == "" || c.When == "" || c.Status < 400 {
			t.Errorf("entry %+v is incomplete", c)
		}
	}
	for _, c := range consts {
		if seen[c] != 1 {
			t.Errorf("code %s has %d entries in Codes, want 1", c, seen[c])
		}
	}
	if len(consts) != len(Codes) {
		t.Errorf("%d code constants, %d entries in Codes", len(consts), len(Codes))
	}
	if p := Of("no_such_code", ""); p.Status != http.StatusInternalServerError {
		t.Errorf("unknown code answers %d", p.Status)
	}
}
