package postgres_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

func BenchmarkTouchSession(b *testing.B) {
	c := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	db := open(b)
	db.SetClock(c.Now)
	storetest.BenchTouchSession(b, db, c)
}
