package problem

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
