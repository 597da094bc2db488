package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPages(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
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
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		if rec.Code != tt.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.ctype) ||
			!strings.Contains(rec.Body.String(), tt.contains) {
			t.Errorf("GET %s = %d %q, body lacks %q", tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.contains)
		}
	}
	if got := s.Changelog(); len(got) != 4 || got[0].Version != "1.3.0" {
		t.Errorf("changelog = %+v", got)
	}
}

func TestEveryProblemCodeDocumented(t *testing.T) {
	// The codes the problem package defines must each have an entry.
	for _, code := range []string{"invalid_parameter", "missing_api_key", "invalid_api_key", "revoked_api_key",
		"suspended_api_key", "origin_not_allowed", "not_found", "method_not_allowed", "rate_limited",
		"daily_limit_exceeded", "internal_error", "unavailable"} {
		found := false
		for _, pc := range problemCodes {
			found = found || pc.Code == code
		}
		if !found {
			t.Errorf("code %s not documented", code)
		}
	}
	_ = http.StatusOK
}
