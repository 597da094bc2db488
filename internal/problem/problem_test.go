package problem

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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

// TestEchoShortened: what a client sent is repeated in a problem at most
// MaxEcho characters long, quoted or not, in the detail and in each field
// error, and the text around it survives.
func TestEchoShortened(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	shortened := strconv.Quote(strings.Repeat("a", MaxEcho) + "…")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short quoted", `perfume "dior-sauvage": not found`, `perfume "dior-sauvage": not found`},
		{"long quoted", `perfume ` + strconv.Quote(long) + `: not found`, `perfume ` + shortened + `: not found`},
		{"two long", strconv.Quote(long) + " or " + strconv.Quote(long), shortened + " or " + shortened},
		{"escapes", strconv.Quote(strings.Repeat(`"\`, 60)), strconv.Quote(strings.Repeat(`"\`, 50) + "…")},
		{"invalid UTF-8", strconv.Quote(strings.Repeat("\xff", 200)), strconv.Quote(strings.Repeat("\xff", MaxEcho) + "…")},
		{"exactly the limit", strconv.Quote(strings.Repeat("é", MaxEcho)), strconv.Quote(strings.Repeat("é", MaxEcho))},
		{"unclosed quote", `bad "` + strings.Repeat("b", 50), `bad "` + strings.Repeat("b", 50)},
		{"unquoted", "no endpoint at /api/" + long, "no endpoint at /api/" + strings.Repeat("a", MaxText-len("no endpoint at /api/")) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Of(NotFound, tc.in)
			p.Errors = []FieldError{{Parameter: "x", Message: tc.in}}
			body, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Detail string
				Errors []FieldError
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			want := strings.ToValidUTF8(tc.want, "\uFFFD")
			if got.Detail != want || got.Errors[0].Message != want {
				t.Errorf("detail = %.300q\nwant     %.300q", got.Detail, want)
			}
			if len(body) > 3*MaxText {
				t.Errorf("body of %d bytes", len(body))
			}
		})
	}
}

// TestGetOnly: OPTIONS answers 204 with the Allow it names (not a 405
// that lists OPTIONS as allowed); other methods but GET and HEAD are 405.
func TestGetOnly(t *testing.T) {
	h := GetOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, tc := range []struct {
		method string
		status int
		allow  string
	}{
		{"GET", http.StatusTeapot, ""},
		{"HEAD", http.StatusTeapot, ""},
		{"OPTIONS", http.StatusNoContent, "GET, HEAD, OPTIONS"},
		{"POST", http.StatusMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"DELETE", http.StatusMethodNotAllowed, "GET, HEAD, OPTIONS"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/healthz", nil))
		if rec.Code != tc.status || rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s = %d Allow %q, want %d Allow %q", tc.method, rec.Code, rec.Header().Get("Allow"), tc.status, tc.allow)
		}
		if tc.method == "OPTIONS" && rec.Body.Len() != 0 {
			t.Errorf("OPTIONS has a body: %q", rec.Body.String())
		}
	}
}
