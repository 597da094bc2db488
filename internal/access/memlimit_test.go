package access_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/limitertest"
)

func TestMemLimiterContract(t *testing.T) {
	limitertest.Run(t, func(t *testing.T, now func() time.Time) access.Limiter {
		return access.NewMemLimiter(access.MemOptions{Now: now})
	})
}
