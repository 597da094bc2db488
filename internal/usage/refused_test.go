package usage_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestRefused: only the counts a limit refused, newest first, endpoints in
// order within an hour; empty counts and other classes left out.
func TestRefused(t *testing.T) {
	h := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	c := func(ep, class string, at time.Time, n int64) usage.Count {
		return usage.Count{KeyPrefix: "fds_Aaaa1111", Endpoint: ep, StatusClass: class, Start: at, Count: n}
	}
	got := usage.Refused([]usage.Count{
		c("search", usage.ClassRateLimited, h.Add(-time.Hour), 3),
		c("perfumes", "2xx", h, 40),
		c("search", usage.ClassRateLimited, h, 2),
		c("perfumes", usage.ClassRateLimited, h, 5),
		c("brands", usage.ClassRateLimited, h, 0),
		c("perfumes", "4xx", h, 7),
	})
	want := []usage.Count{
		c("perfumes", usage.ClassRateLimited, h, 5),
		c("search", usage.ClassRateLimited, h, 2),
		c("search", usage.ClassRateLimited, h.Add(-time.Hour), 3),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Refused = %+v\nwant %+v", got, want)
	}
	if got := usage.Refused(nil); len(got) != 0 {
		t.Errorf("Refused(nil) = %+v", got)
	}
}
