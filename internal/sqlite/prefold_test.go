package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/migrate"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// preFoldVersion is the last migration before addresses were folded.
const preFoldVersion = 10

// TestPreFoldMigration stores accounts in the schema of preFoldVersion,
// as an older release did, then opens the database as this one does.
func TestPreFoldMigration(t *testing.T) {
	storetest.RunPreFoldMigration(t, func(t *testing.T, now func() time.Time, accounts []storetest.PreFoldAccount) storetest.AccountStore {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "old.db")
		raw, err := connect(path)
		if err != nil {
			t.Fatal(err)
		}
		old := &DB{db: raw, now: now}
		ms, err := migrate.List(migrationFS, "migrations")
		if err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := raw.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
		for _, m := range ms {
			if m.Version <= preFoldVersion {
				if err := old.apply(ctx, m); err != nil {
					t.Fatalf("%s: %v", m.Name, err)
				}
			}
		}
		at := now().UnixMilli()
		for i, a := range accounts {
			made := at - int64(len(accounts)-i)*time.Hour.Milliseconds()
			exec(`INSERT INTO accounts (id, email, created_at, disabled) VALUES (?, ?, ?, ?)`, i+1, a.Email, made, a.Disabled)
			if a.Key != "" {
				state, byAccount := a.Key, a.Key == "disabled"
				if byAccount {
					state = "suspended"
				}
				exec(`INSERT INTO api_keys (prefix, hash, tier, state, account_id, suspended_by_account, created_at, updated_at)
					VALUES (?, ?, 'free', ?, ?, ?, ?, ?)`, storetest.PreFoldKey(i), "hash-"+storetest.PreFoldKey(i), state, i+1, byAccount, made, made)
			}
			if a.Session {
				exec(`INSERT INTO sessions (hash, account_id, created_at, last_seen) VALUES (?, ?, ?, ?)`,
					storetest.PreFoldSession(i), i+1, at-time.Hour.Milliseconds(), at-time.Hour.Milliseconds())
			}
		}
		if err := raw.Close(); err != nil {
			t.Fatal(err)
		}
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetClock(now)
		return db
	})
}
