package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestTierStoreContract(t *testing.T) {
	storetest.RunTierStore(t, func(t *testing.T) (apikey.TierStore, apikey.TierStore) {
		path := filepath.Join(t.TempDir(), "tiers.db")
		var handles [2]*sqlite.DB
		for i := range handles {
			db, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			handles[i] = db
		}
		return handles[0], handles[1]
	})
}

// TestMigrationGapApplied: a database whose newest migration is applied
// but an older one is not (0006 shipped before 0005 was merged) gets the
// missing one on the next open. (Before, only the newest version was
// compared, and the gap stayed.)
func TestMigrationGapApplied(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gap.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{`DROP TABLE latency_hourly`, `DROP TABLE views_daily`, `DROP TABLE empty_searches_daily`,
		`DELETE FROM schema_migrations WHERE version = 4`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = 4`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("migration 4 recorded %d times (%v) after reopening", n, err)
	}
	if _, err := raw.ExecContext(ctx, `SELECT COUNT(*) FROM views_daily`); err != nil {
		t.Fatalf("migration 4's table is still missing: %v", err)
	}
}
