package postgres_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/usage"
)

func TestKeyStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunKeyStore(t, func(t *testing.T, now func() time.Time) apikey.Store {
		db := open(t)
		db.SetClock(now)
		return db
	})
}

func TestUsageStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunUsageStore(t, func(t *testing.T) usage.Store { return open(t) })
}

// TestImageStore runs the image contract with PostgreSQL holding both the
// jobs and the blobs.
func TestImageStore(t *testing.T) {
	t.Parallel()
	storetest.RunImageStore(t, func(t *testing.T, now func() time.Time) imgstore.Store {
		db := open(t)
		db.SetClock(now)
		return db
	})
}
