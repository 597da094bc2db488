package main

import (
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// noRedirect is a client that shows redirects rather than following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// adminGet asks path of base from this test (127.0.0.1), with an
// X-Forwarded-For when xff is not empty.
func adminGet(t *testing.T, base, path, xff string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// TestAdminGate runs the real server: without --admin-allow, or with one
// it cannot read, /admin is a 404 like any missing page; with the test's
// own address allowed it asks for a sign-in; behind a trusted proxy the
// forwarded address decides.
func TestAdminGate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fragrance.db")
	for _, allow := range []string{"", "nonsense,127.0.0.1/32"} {
		base, stop, log := startServeLog(t, noEnv, "--db", db, "--admin-allow", allow)
		for _, p := range []string{"/admin", "/admin/signin", "/admin/keys", "/admin/nothing"} {
			if code, _, body := adminGet(t, base, p, ""); code != http.StatusNotFound || !strings.Contains(body, "Page not found") {
				t.Errorf("--admin-allow %q: GET %s = %d", allow, p, code)
			}
		}
		if allow != "" && !strings.Contains(log.String(), "admin-allow is unreadable") {
			t.Errorf("an unreadable --admin-allow is not logged:\n%s", log)
		}
		stop()
	}
	base, _ := startServe(t, noEnv, "--db", db, "--admin-allow", "127.0.0.1/32", "--trusted-proxies", "127.0.0.1")
	if code, loc, _ := adminGet(t, base, "/admin", ""); code != http.StatusSeeOther || loc != "/admin/signin" {
		t.Errorf("GET /admin from an allowed address: %d %q", code, loc)
	}
	if code, _, body := adminGet(t, base, "/admin/signin", ""); code != http.StatusOK || !strings.Contains(body, ">Sign in</button>") {
		t.Errorf("GET /admin/signin from an allowed address: %d", code)
	}
	if code, _, _ := adminGet(t, base, "/admin/signin", "203.0.113.9"); code != http.StatusNotFound {
		t.Errorf("GET /admin/signin forwarded for an outside address by a trusted proxy: %d", code)
	}
}

// TestAdminAllow: --admin-allow opens to what it names, and to nobody
// when empty or unreadable.
func TestAdminAllow(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for in, want := range map[string]int{"": 0, " ": 0, "10.0.0.0/8": 1, "10.0.0.0/8, 192.0.2.7": 2, "10.0.0.0/8,nonsense": 0, "300.1.1.1": 0, ",": 0} {
		if got := adminAllow(in, log); len(got) != want {
			t.Errorf("adminAllow(%q) = %v, want %d prefixes", in, got, want)
		}
	}
}
