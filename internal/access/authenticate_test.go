package access_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// TestGuardAuthenticate: the key check alone refuses as Wrap does, before
// the handler runs, and an admitted request spends none of the key's
// windows.
func TestGuardAuthenticate(t *testing.T) {
	e := newEnv(t, access.Config{})
	ran := 0
	e.handler = e.g.Authenticate("mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ran++ }))
	_, secret := e.issue(apikey.NewKey{})
	k, revoked := e.issue(apikey.NewKey{})
	if _, err := e.keys.SetKeyState(t.Context(), k.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	problemOf(t, e.get("/mcp", "192.0.2.30"), 401, "missing_api_key")
	problemOf(t, e.get("/mcp", "192.0.2.30", "X-API-Key", revoked), 401, "revoked_api_key")
	if ran != 0 {
		t.Fatal("the handler ran for a refused key")
	}
	for range 70 { // more than the free tier's 60 a minute
		if w := e.get("/mcp", "192.0.2.30", "Authorization", "Bearer "+secret); w.Code != http.StatusOK {
			t.Fatalf("admitted key: %d", w.Code)
		}
	}
	if ran != 70 {
		t.Fatalf("handler ran %d times, want 70", ran)
	}
	// The key's windows are untouched: Wrap still admits it.
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/perfumes", nil)
	r.Header.Set("X-API-Key", secret)
	e.g.Wrap("perfumes", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Remaining") != "59" {
		t.Fatalf("after Authenticate: %d, remaining %q", w.Code, w.Header().Get("X-RateLimit-Remaining"))
	}
}
