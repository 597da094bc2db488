package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fragrance-data/fragrance/internal/migrate"
)

// SetOnListen lets tests learn the server process of each watch connection,
// so they can cut it.
func SetOnListen(d *DB, f func(channel string, pid uint32)) { d.onListen = f }

// Terminate ends the server process pid, as a restart would.
func Terminate(ctx context.Context, d *DB, pid uint32) error {
	_, err := d.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid))
	return err
}

// OpenOld opens the database at url with only the migrations up to
// version applied, as an older release left it; Open migrates it on.
func OpenOld(ctx context.Context, url string, version int) (*DB, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	d := &DB{pool: pool, now: time.Now, log: slog.New(slog.DiscardHandler)}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return nil, err
	}
	ms, err := migrate.List(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.Version <= version {
			if err := d.apply(ctx, conn, m); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// Exec runs one statement on d's pool.
func Exec(ctx context.Context, d *DB, q string, args ...any) error {
	_, err := d.pool.Exec(ctx, q, args...)
	return err
}
