package ratelimit_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/limitertest"
)

func TestMemLimiterContract(t *testing.T) {
	limitertest.Run(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		return ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: now})
	})
}
