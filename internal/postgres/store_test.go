package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
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

func BenchmarkTouchSession(b *testing.B) {
	storetest.BenchTouchSession(b, func(b *testing.B, now func() time.Time) storetest.SessionStores {
		db := open(b)
		db.SetClock(now)
		return db
	})
}

func TestNeighbourStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunNeighbourStore(t, func(t *testing.T) catalog.NeighbourStore { return open(t) })
}

func TestUsageStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunUsageStore(t, func(t *testing.T) usage.Store { return open(t) })
}

// TestUsageAtomic breaks the writes of empty searches with a trigger, set
// up through a connection of its own to the test's schema.
func TestUsageAtomic(t *testing.T) {
	t.Parallel()
	storetest.RunUsageAtomic(t, func(t *testing.T) (usage.Store, func(t *testing.T)) {
		u := schemaURL(t)
		return openAt(t, u), func(t *testing.T) {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `CREATE FUNCTION break_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN RAISE EXCEPTION 'broken by the test'; END $$;
				CREATE TRIGGER break_for_test BEFORE INSERT OR UPDATE ON empty_searches_daily
					FOR EACH ROW EXECUTE FUNCTION break_for_test()`); err != nil {
				t.Fatal(err)
			}
		}
	})
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

func TestTierStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunTierStore(t, func(t *testing.T) (apikey.TierStore, apikey.TierStore) {
		u := schemaURL(t)
		return openAt(t, u), openAt(t, u)
	})
}

// TestAccountStoreContract runs the portal's contract with two pools on
// one schema, as two replicas have: its SharedByHandles case is a session
// made through one replica and touched through the other.
func TestAccountStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunAccountStore(t, func(t *testing.T, now func() time.Time) (storetest.AccountStore, storetest.AccountStore) {
		u := schemaURL(t)
		a, b := openAt(t, u), openAt(t, u)
		a.SetClock(now)
		b.SetClock(now)
		return a, b
	})
}

// TestAdminStoreContract runs the dashboard's contract; its exec is a
// connection of its own to the test's schema, as an operator's psql.
func TestAdminStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunAdminStore(t, func(t *testing.T, now func() time.Time) (admin.Store, func(string) error) {
		u := schemaURL(t)
		db := openAt(t, u)
		db.SetClock(now)
		return db, func(q string) error {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			_, err = conn.Exec(ctx, q)
			return err
		}
	})
}
