package server_test

import (
	"context"
	"testing"

	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestHealthzDegraded: a service that still answers with a component
// impaired (a configured Redis gone, the store unreachable) answers 200,
// so a load balancer keeps it, with status "degraded" and the component's
// state, so monitoring sees it.
func TestHealthzDegraded(t *testing.T) {
	h := servetest.NewServer(t, func(c *servetest.Config) {
		c.Health = func(context.Context) server.Health {
			return server.Health{Ready: true, Degraded: true, Components: map[string]string{
				"store": "ok", "limiter": "degraded: in-process (redis unreachable since 2026-01-01T00:00:00Z)",
			}}
		}
	})
	rec := servetest.Do(t, h, "GET", "/healthz")
	m := servetest.Decode(t, rec)
	comps, _ := m["components"].(map[string]any)
	if rec.Code != 200 || m["status"] != "degraded" || m["ready"] != true || comps["limiter"] == nil {
		t.Fatalf("healthz = %d %v", rec.Code, m)
	}
	if _, ok := m["Degraded"]; ok {
		t.Errorf("the Go field leaks into the JSON: %v", m)
	}
}
