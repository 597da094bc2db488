package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// TestBuyLinkClicksOncePerClient: one client following a buy link again
// and again is one click of that perfume that day; another perfume is
// another click. The counts are those serve writes to its store.
func TestBuyLinkClicksOncePerClient(t *testing.T) {
	db := newDB(t, "clicks.db")
	base, stop := startServe(t, noEnv, "--db", db)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, slug := range []string{"dior-sauvage", "dior-sauvage", "givenchy-amarige"} {
		for range 25 {
			res, err := client.Get(base + "/goto/" + slug)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound {
				t.Fatalf("GET /goto/%s: %d", slug, res.StatusCode)
			}
		}
	}
	stop() // writes what the meter holds
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC()
	clicks, err := store.DailyClicks(ctx, now.Add(-48*time.Hour), now.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, c := range clicks {
		total += c.Count
	}
	if total != 2 || len(clicks) != 2 {
		t.Errorf("75 follows of 2 buy links by one client counted as %d clicks (%v), want 2", total, clicks)
	}
}
