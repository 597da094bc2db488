package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestKeyStoreContract(t *testing.T) {
	storetest.RunKeyStore(t, func(t *testing.T, now func() time.Time) apikey.Store {
		db := open(t)
		db.SetClock(now)
		return db
	})
}

func TestAccountStoreContract(t *testing.T) {
	storetest.RunAccountStore(t, func(t *testing.T, now func() time.Time) (storetest.AccountStore, storetest.AccountStore) {
		path := filepath.Join(t.TempDir(), "accounts.db")
		var handles [2]*sqlite.DB
		for i := range handles {
			db, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			db.SetClock(now)
			handles[i] = db
		}
		return handles[0], handles[1]
	})
}

// TestAdminStoreContract runs the dashboard's contract; its exec is a
// second handle's raw SQL, as an operator's sqlite3 shell would send.
func TestAdminStoreContract(t *testing.T) {
	storetest.RunAdminStore(t, func(t *testing.T, now func() time.Time) (admin.Store, func(string) error) {
		path := filepath.Join(t.TempDir(), "admin.db")
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetClock(now)
		raw, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		return db, func(q string) error {
			_, err := raw.ExecContext(context.Background(), q)
			return err
		}
	})
}

func BenchmarkTouchSession(b *testing.B) {
	storetest.BenchTouchSession(b, func(b *testing.B, now func() time.Time) storetest.SessionStores {
		db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		db.SetClock(now)
		return db
	})
}
