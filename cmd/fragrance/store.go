package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// openStore opens the backend named by dsn: a file path (SQLite, the
// default) or a postgres:// URL (PostgreSQL, when the scale-out backend is
// built in).
func openStore(ctx context.Context, dsn string) (*sqlite.DB, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return nil, fmt.Errorf("open %s: the PostgreSQL backend is not available in this build", redactDSN(dsn))
	}
	return sqlite.Open(ctx, dsn)
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
