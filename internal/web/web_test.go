package web_test

import (
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/web"
)

func TestPages(t *testing.T) {
	h := servetest.NewServer(t, nil)
	tests := []struct {
		path, ctype string
		status      int
		contains    string
	}{
		{"/docs/errors", "text/html", 200, `id="daily_limit_exceeded"`},
		{"/changelog", "text/html", 200, `id="v1.3.0"`},
		{"/changelog.json", "application/json", 200, `"version": "1.0.0"`},
		{"/nope", "text/plain", 404, "not found"},
	}
	for _, tt := range tests {
		rec := servetest.Do(t, h, "GET", tt.path)
		if rec.Code != tt.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.ctype) ||
			!strings.Contains(rec.Body.String(), tt.contains) {
			t.Errorf("GET %s = %d %q, body lacks %q", tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.contains)
		}
	}
	s, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Changelog(); len(got) != 4 || got[0].Version != "1.3.0" {
		t.Errorf("changelog = %+v", got)
	}
}

// TestErrorReference: the error reference lists every problem code of the
// table, its status and when it is answered, at the anchor problem "type"
// links point to.
func TestErrorReference(t *testing.T) {
	body := servetest.Do(t, servetest.NewServer(t, nil), "GET", "/docs/errors").Body.String()
	for _, c := range problem.Codes {
		if !strings.Contains(body, `id="`+c.Code+`"`) || !strings.Contains(body, c.When) {
			t.Errorf("code %s is not documented as in the table", c.Code)
		}
		if want := problem.TypeURI(c.Code); !strings.HasPrefix(want, "/docs/errors#") {
			t.Errorf("type of %s is %s", c.Code, want)
		}
	}
}
