package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

func BenchmarkTouchSession(b *testing.B) {
	c := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetClock(c.Now)
	storetest.BenchTouchSession(b, db, c)
}
