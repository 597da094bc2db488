package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestLongInputEchoShortened: a 100,000-character slug, path or parameter
// is repeated in the error at most 100 characters long.
func TestLongInputEchoShortened(t *testing.T) {
	h := newServer(t, nil)
	long := strings.Repeat("x", 100_000)
	for _, target := range []string{
		"/api/perfumes/" + long,
		"/api/perfumes/" + long + "/similar",
		"/api/perfumers/" + long,
		"/api/" + long,
		"/api/perfumes/match?gender=" + long,
		"/api/perfumes/match?accords=" + strings.Repeat("y", 999),
	} {
		rec := do(t, h, "GET", target)
		if rec.Code/100 != 4 {
			t.Errorf("GET %.40s…: %d", target, rec.Code)
		}
		if rec.Body.Len() > 4096 {
			t.Errorf("GET %.40s…: %d bytes: %.300s", target, rec.Body.Len(), rec.Body)
		}
		m := decode(t, rec)
		if d, _ := m["detail"].(string); strings.Contains(d, strings.Repeat("x", 101)) || strings.Contains(d, strings.Repeat("y", 101)) {
			t.Errorf("GET %.40s…: detail echoes more than 100 characters", target)
		}
	}
}

// TestMatchNeedsAProfile: match without accords, notes, gender, season or
// time would score every perfume alike; it is a 400 naming what it takes.
func TestMatchNeedsAProfile(t *testing.T) {
	h := newServer(t, nil)
	for _, target := range []string{"/api/perfumes/match", "/api/perfumes/match?page=2&limit=5", "/api/perfumes/match?accords=&notes=+"} {
		rec := do(t, h, "GET", target)
		if rec.Code != http.StatusBadRequest {
			t.Fatalf("GET %s = %d: %.300s", target, rec.Code, rec.Body)
		}
		m := decode(t, rec)
		errs, _ := m["errors"].([]any)
		if m["code"] != "invalid_parameter" || len(errs) != 1 {
			t.Fatalf("GET %s: %v", target, m)
		}
		msg := errs[0].(map[string]any)["message"].(string)
		for _, p := range []string{"accords", "notes", "gender", "season", "time"} {
			if !strings.Contains(msg, p) {
				t.Errorf("GET %s: message %q does not name %s", target, msg, p)
			}
		}
	}
	for _, target := range []string{"/api/perfumes/match?season=winter", "/api/perfumes/match?notes=vanilla", "/api/perfumes/match?gender=feminine&limit=1"} {
		if rec := do(t, h, "GET", target); rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d: %.300s", target, rec.Code, rec.Body)
		}
	}
}
