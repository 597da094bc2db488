package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// stampOrNow is t as stored, or the store's clock when t is zero: the
// time of a record its caller may leave to the store.
func (d *DB) stampOrNow(t time.Time) time.Time {
	if t.IsZero() {
		t = d.now()
	}
	return stampOrZero(t)
}

// queryOne scans the one row q selects with scan (a missing row is scan's
// catalog.ErrNotFound); what names the read in errors.
func queryOne[T any](ctx context.Context, d *DB, what string, scan func(rowScanner) (T, error), q string, args ...any) (T, error) {
	v, err := scan(d.db.QueryRowContext(ctx, q, args...))
	if err != nil {
		var none T
		return none, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// queryAll scans every row q selects with scan; what names the read in
// errors. No rows give nil.
func queryAll[T any](ctx context.Context, d *DB, what string, scan func(rowScanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return collect(rows, what, func(r *sql.Rows) (T, error) { return scan(r) })
}
