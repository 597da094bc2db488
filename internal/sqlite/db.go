// Package sqlite is the embedded default backend: the catalogue, API keys,
// usage and image jobs in one SQLite file, through modernc.org/sqlite (no cgo).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/fragrance-data/fragrance/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open SQLite database with the schema migrated to the newest version.
type DB struct {
	db *sql.DB
	// Now is the clock used for timestamps; tests may replace it before use.
	now func() time.Time
}

// Open opens (creating if needed) the database file at path and applies any
// pending migrations. path ":memory:" is not supported: use a temp file.
func Open(ctx context.Context, path string) (*DB, error) {
	sqldb, err := connect(path)
	if err != nil {
		return nil, err
	}
	d := &DB{db: sqldb, now: time.Now}
	if err := d.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("sqlite: migrate %s: %w", path, err)
	}
	return d, nil
}

// connect opens the database file at path with the store's settings,
// migrating nothing.
func connect(path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One writer at a time is SQLite's rule; a few readers may run beside it.
	sqldb.SetMaxOpenConns(4)
	return sqldb, nil
}

// SetClock replaces the clock used for stored timestamps (for tests).
func (d *DB) SetClock(now func() time.Time) { d.now = now }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error { return d.db.PingContext(ctx) }

// migration is one embedded schema step.
// migrate applies every migration newer than the recorded version, each in
// its own transaction, so a failure leaves the schema at a known version.
func (d *DB) migrate(ctx context.Context) error {
	ms, err := migrate.List(migrationFS, "migrations")
	if err != nil {
		return err
	}
	// An up-to-date database is only read: opening it must not wait for
	// the write lock another process (a running serve) may hold. Every
	// version is looked for, not only the newest: a migration merged with
	// a lower number than one already applied must still run.
	if d.applied(ctx, ms) {
		return nil
	}
	if _, err := d.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return err
	}
	for _, m := range ms {
		if err := d.apply(ctx, m); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

// applied reports whether every migration of ms is recorded.
func (d *DB) applied(ctx context.Context, ms []migrate.Migration) bool {
	rows, err := d.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return false
	}
	defer rows.Close()
	done := map[int]bool{}
	for rows.Next() {
		var v int
		if rows.Scan(&v) != nil {
			return false
		}
		done[v] = true
	}
	if rows.Err() != nil {
		return false
	}
	for _, m := range ms {
		if !done[m.Version] {
			return false
		}
	}
	return true
}

func (d *DB) apply(ctx context.Context, m migrate.Migration) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, d.now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion returns the newest applied migration.
func (d *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := d.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}
