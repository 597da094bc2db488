package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
)

// goneWriter is a client that went away: the status line is accepted,
// the body's write fails as on a closed connection.
type goneWriter struct {
	h      http.Header
	codes  []int
	writes int
}

func (g *goneWriter) Header() http.Header  { return g.h }
func (g *goneWriter) WriteHeader(code int) { g.codes = append(g.codes, code) }
func (g *goneWriter) Write(p []byte) (int, error) {
	g.writes++
	return 0, syscall.EPIPE
}

// TestClientGoneIsNotAnError: when the body of an answer cannot be written
// because the client has gone, its status is already sent, so no problem
// answer follows it (which net/http would log as a superfluous
// WriteHeader), and nothing is logged as an internal error.
func TestClientGoneIsNotAnError(t *testing.T) {
	var logs bytes.Buffer
	h := newServer(t, func(c *newConfig) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	for _, target := range []string{
		"/api/perfumes?limit=2",             // encoded afresh
		"/api/perfumes?limit=2",             // from the answer cache
		"/api/perfumes/dior-sauvage",        // detail
		"/api/brands?limit=2",               // encoding/json
		"/api/perfumes/match?accords=woody", // match
	} {
		logs.Reset()
		req := httptest.NewRequest("GET", target, nil)
		g := &goneWriter{h: http.Header{}}
		h.ServeHTTP(g, req)
		if len(g.codes) != 1 || g.codes[0] != http.StatusOK || g.writes == 0 {
			t.Errorf("GET %s: statuses %v, %d writes; want one 200 and its body's write", target, g.codes, g.writes)
		}
		if s := logs.String(); strings.Contains(s, "level=ERROR") || strings.Contains(s, "internal error") {
			t.Errorf("GET %s: a client gone logged as an error:\n%s", target, s)
		}
	}
}
