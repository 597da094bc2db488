package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// open returns a new database in a temporary folder, closed at the end of the test.
func open(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCatalogueContract(t *testing.T) {
	storetest.RunCatalogue(t, func(t *testing.T) catalog.Store { return open(t) })
}

func TestNeighbourStoreContract(t *testing.T) {
	storetest.RunNeighbourStore(t, func(t *testing.T) catalog.NeighbourStore { return open(t) })
}

func TestMigrationsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil || v < 1 {
			t.Fatalf("schema version = %d, %v", v, err)
		}
		db.Close()
	}
}
