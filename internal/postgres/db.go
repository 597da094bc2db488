// Package postgres is the scale-out backend: the catalogue, API keys, usage,
// abuse signals, image jobs and image blobs in one PostgreSQL database that
// several replicas of the service share, through jackc/pgx with a pool.
// It meets the same contracts as the SQLite backend (internal/storetest
// holds them both to it) and adds what replicas need to stay in step:
// LISTEN/NOTIFY watches for catalogue imports and key changes.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fragrance-data/fragrance/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so a request fails fast (and closed) while the database
// is down instead of hanging until its own deadline.
const defaultConnectTimeout = 5 * time.Second

// migrateLockClass is the first half of the advisory lock key held while
// migrating ("frag"); the second half is a hash of the schema, so databases
// shared by several schemas (tests, staging) do not wait on each other.
const migrateLockClass = 0x66726167

// DB is a pool of connections to a PostgreSQL database whose schema is
// migrated to the newest version. It is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	now  func() time.Time
	log  *slog.Logger
	// onListen, when set (by tests), learns the server process id of each
	// connection a watch starts listening on, so a test can cut it.
	onListen func(channel string, pid uint32)
}

// Open connects to the database at url (postgres://user:pass@host:port/db?...;
// a search_path parameter selects the schema) and applies any pending
// migrations under an advisory lock, so replicas starting together migrate
// once. A database that cannot be reached gives an error wrapping
// catalog.ErrUnavailable.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn's parse error masks the password.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fail("connect", err)
	}
	d := &DB{pool: pool, now: time.Now, log: slog.New(slog.DiscardHandler)}
	if err := d.migrate(ctx); err != nil {
		pool.Close()
		return nil, fail("migrate", err)
	}
	return d, nil
}

// SetClock replaces the clock used for stored timestamps (for tests).
func (d *DB) SetClock(now func() time.Time) { d.now = now }

// SetLogger sets where the watches report lost and regained connections;
// by default nothing is logged. Call it before starting a watch.
func (d *DB) SetLogger(l *slog.Logger) { d.log = l }

// Close closes every connection of the pool; watches running on their own
// connections end when their contexts do.
func (d *DB) Close() error {
	d.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error {
	if err := d.pool.Ping(ctx); err != nil {
		return fail("ping", err)
	}
	return nil
}

// SchemaVersion returns the newest applied migration.
func (d *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v *int
	if err := d.pool.QueryRow(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fail("schema version", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// migration is one embedded schema step.
// migrate applies every migration not yet recorded, each in its own
// transaction, while holding a session-level advisory lock on one
// connection: a second replica starting at the same time waits for the
// first to finish, then finds nothing left to do. Should this process die
// mid-way, the server drops the lock with the connection.
func (d *DB) migrate(ctx context.Context) error {
	ms, err := migrate.List(migrationFS, "migrations")
	if err != nil {
		return err
	}
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	const lockArgs = `($1, hashtext(COALESCE(current_schema(), '')))`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock`+lockArgs, migrateLockClass); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		var released bool
		uerr := conn.QueryRow(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock`+lockArgs, migrateLockClass).Scan(&released)
		if uerr != nil || !released {
			// A connection still holding the lock must not go back to the
			// pool: closing it makes the server drop the lock.
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return err
	}
	for _, m := range ms {
		if err := d.apply(ctx, conn, m); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

// apply runs one migration unless it is recorded already.
func (d *DB) apply(ctx context.Context, conn *pgxpool.Conn, m migrate.Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var done bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.Version).Scan(&done); err != nil {
		return err
	}
	if done {
		return nil
	}
	// No arguments: pgx sends it with the simple protocol, which allows
	// several statements in one string.
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.Version, m.Name, d.now()); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
