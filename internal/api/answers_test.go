package api_test

import (
	"net/http"
	"sync"
	"testing"
)

// TestConcurrentAnswers: a burst of requests for answers nobody asked for
// yet (one of them computes, the others wait) all get the same, full answer.
func TestConcurrentAnswers(t *testing.T) {
	h := newServer(t, nil)
	for _, target := range []string{"/api/perfumes/creed-aventus/similar?limit=7", "/api/perfumes?q=tobacco+van&limit=3", "/api/nothing-here"} {
		want := do(t, h, "GET", target)
		h := newServer(t, nil) // a fresh, empty cache
		var wg sync.WaitGroup
		bodies := make([]string, 16)
		codes := make([]int, 16)
		for i := range bodies {
			wg.Go(func() {
				rec := do(t, h, "GET", target)
				bodies[i], codes[i] = rec.Body.String(), rec.Code
			})
		}
		wg.Wait()
		for i := range bodies {
			if codes[i] != want.Code || (want.Code == http.StatusOK && bodies[i] != want.Body.String()) {
				t.Fatalf("%s: request %d got %d %.80s, want %d %.80s", target, i, codes[i], bodies[i], want.Code, want.Body)
			}
		}
	}
}
