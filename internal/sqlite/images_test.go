package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// TestImageStore runs the image storage contract against the default set-up:
// SQLite for the jobs, the filesystem beside it for the blobs.
func TestImageStore(t *testing.T) {
	storetest.RunImageStore(t, func(t *testing.T, now func() time.Time) imgstore.Store {
		dir := t.TempDir()
		path := filepath.Join(dir, "test.db")
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetClock(now)
		blobs, err := imgfiles.NewFS(imgfiles.DefaultDir(path))
		if err != nil {
			t.Fatal(err)
		}
		return imgstore.With(blobs, db)
	})
}
