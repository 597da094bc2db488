package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/usage"
)

func TestUsageStoreContract(t *testing.T) {
	storetest.RunUsageStore(t, func(t *testing.T) usage.Store { return open(t) })
}

// TestUsageAtomic breaks the writes of empty searches with triggers, set
// up through a connection of its own to the database file.
func TestUsageAtomic(t *testing.T) {
	storetest.RunUsageAtomic(t, func(t *testing.T) (usage.Store, func(t *testing.T)) {
		path := filepath.Join(t.TempDir(), "test.db")
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, func(t *testing.T) {
			conn, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, when := range []string{"INSERT", "UPDATE"} {
				if _, err := conn.Exec(`CREATE TRIGGER break_` + when + ` BEFORE ` + when + ` ON empty_searches_daily
					BEGIN SELECT RAISE(ABORT, 'broken by the test'); END`); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
