package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// preFoldVersion is the last migration before addresses were folded.
const preFoldVersion = 10

// TestPreFoldMigration stores accounts in the schema of preFoldVersion,
// as an older release did, then opens the database as this one does.
func TestPreFoldMigration(t *testing.T) {
	t.Parallel()
	storetest.RunPreFoldMigration(t, func(t *testing.T, now func() time.Time, accounts []storetest.PreFoldAccount) storetest.AccountStore {
		ctx := context.Background()
		u := schemaURL(t)
		old, err := postgres.OpenOld(ctx, u, preFoldVersion)
		if err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if err := postgres.Exec(ctx, old, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		at := now()
		for i, a := range accounts {
			made := at.Add(-time.Duration(len(accounts)-i) * time.Hour)
			exec(`INSERT INTO accounts (id, email, created_at, disabled) OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4)`, i+1, a.Email, made, a.Disabled)
			if a.Key != "" {
				state, byAccount := a.Key, a.Key == "disabled"
				if byAccount {
					state = "suspended"
				}
				exec(`INSERT INTO api_keys (prefix, hash, tier, state, account_id, suspended_by_account, created_at, updated_at)
					VALUES ($1, $2, 'free', $3, $4, $5, $6, $6)`, storetest.PreFoldKey(i), "hash-"+storetest.PreFoldKey(i), state, i+1, byAccount, made)
			}
			if a.Session {
				exec(`INSERT INTO sessions (hash, account_id, created_at, last_seen) VALUES ($1, $2, $3, $3)`,
					storetest.PreFoldSession(i), i+1, at.Add(-time.Hour))
			}
		}
		exec(`SELECT setval(pg_get_serial_sequence('accounts', 'id'), 100)`)
		old.Close()
		db := openAt(t, u)
		db.SetClock(now)
		return db
	})
}
