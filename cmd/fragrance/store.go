package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// backend is everything the service keeps in its database. The SQLite and
// PostgreSQL backends both meet it.
type backend interface {
	catalog.Store
	catalog.NeighbourStore
	apikey.Store
	apikey.TierStore
	account.Store
	admin.Store
	usage.Store
	imgstore.Index
	Ping(ctx context.Context) error
	SchemaVersion(ctx context.Context) (int, error)
	Close() error
}

var (
	_ backend = (*sqlite.DB)(nil)
	_ backend = (*postgres.DB)(nil)
)

// isPostgres reports whether dsn names a PostgreSQL database.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// openStore opens the backend named by dsn: a postgres:// URL (PostgreSQL)
// or a file path (SQLite, the default), creating and migrating it as needed.
// Only serve, import and migrate may create a database; the other commands
// open it with openExistingStore.
func openStore(ctx context.Context, dsn string) (backend, error) {
	if isPostgres(dsn) {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn)
}

// openExistingStore opens the backend named by dsn like openStore, but
// refuses a SQLite file that does not exist: a command run from the wrong
// folder must not leave a new, empty database there (and report on it).
// A PostgreSQL database is never created by the service, so URLs pass.
func openExistingStore(ctx context.Context, dsn string) (backend, error) {
	if err := sqliteExists(dsn); err != nil {
		return nil, err
	}
	return openStore(ctx, dsn)
}

// sqliteExists reports a missing SQLite file as "no database at PATH".
func sqliteExists(dsn string) error {
	if isPostgres(dsn) {
		return nil
	}
	st, err := os.Stat(dsn)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("no database at %s (pass --db)", dsn)
	case err != nil:
		return fmt.Errorf("database %s: %w", dsn, err)
	case st.IsDir():
		return fmt.Errorf("database %s is a directory, not a SQLite file (pass --db)", dsn)
	}
	return nil
}

// openImageStore is where images live: in PostgreSQL itself when the
// catalogue is there (so replicas share them), else files in dir (default
// beside the SQLite file) with the job states in the database.
func openImageStore(db backend, dsn, dir string) (imgstore.Store, error) {
	if pg, ok := db.(*postgres.DB); ok && dir == "" {
		return pg, nil
	}
	if dir == "" {
		dir = imgfiles.DefaultDir(dsn)
	}
	blobs, err := imgfiles.NewFS(dir)
	if err != nil {
		return nil, err
	}
	return imgstore.With(blobs, db), nil
}

// redactDSN hides the password of a database URL for messages and logs.
func redactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return dsn
	}
	creds := dsn[scheme+3 : at]
	if user, _, ok := strings.Cut(creds, ":"); ok {
		return dsn[:scheme+3] + user + ":xxxxx" + dsn[at:]
	}
	return dsn
}
