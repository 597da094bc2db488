package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The portal's sessions (table sessions, of accounts) and the dashboard's
// (admin_sessions, of admin users) are kept one way: a row per signed-in
// browser keyed by the hash of its cookie, made only for an owner allowed
// in, touched in a transaction that deletes it once it has ended, and the
// rows ended by the clock of a new one pruned as it is made. A
// sessionTable says where the two differ.

// sessionTable is one table of browser sessions.
type sessionTable struct {
	// what names a session in errors ("session", "admin session").
	what string
	// table is the table; owner the column naming the session's owner.
	table, owner string
	// ip: the table keeps the client IP at sign-in.
	ip bool
	// allowed is the FROM clause that yields the id of an owner a session
	// may be made for, given the owner's id as its one parameter; allowedName
	// names such an owner in errors.
	allowed, allowedName string
	// idle and max are how long a session lasts unused and at all: a new
	// session prunes the rows ended by its own time.
	idle, max time.Duration
	// gone is the answer of a touch that finds no live session.
	gone error
}

// sessionRow is one row of a session table.
type sessionRow struct {
	hash              string
	owner             int64
	ip                string
	created, lastSeen time.Time
}

// columns lists the table's columns in the order sessionRow scans them.
func (t sessionTable) columns() string {
	if t.ip {
		return "hash, " + t.owner + ", ip, created_at, last_seen"
	}
	return "hash, " + t.owner + ", created_at, last_seen"
}

// endAllOf is the statement that ends every session of one owner (its
// parameter), in whatever transaction runs it.
func (t sessionTable) endAllOf() string {
	return `DELETE FROM ` + t.table + ` WHERE ` + t.owner + ` = ?`
}

// createSession stores s (hash, owner, ip, created; last seen = created)
// for an owner t allows, pruning the sessions ended by s's creation time
// on the way so the table stays small. Any other owner gives an error
// wrapping catalog.ErrNotFound.
func (d *DB) createSession(ctx context.Context, t sessionTable, s sessionRow) error {
	what := "create " + t.what
	if s.hash == "" || s.created.IsZero() {
		return fmt.Errorf("%s: hash and creation time are required: %w", what, catalog.ErrInvalid)
	}
	created := stampOrZero(s.created).UnixMilli()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.table+` WHERE last_seen <= ? OR created_at <= ?`,
		created-t.idle.Milliseconds(), created-t.max.Milliseconds()); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	values, args := `?, id, ?, ?`, []any{s.hash, created, created, s.owner}
	if t.ip {
		values, args = `?, id, ?, ?, ?`, []any{s.hash, s.ip, created, created, s.owner}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO `+t.table+` (`+t.columns()+`) SELECT `+values+` FROM `+t.allowed, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("%s: no %s %d: %w", what, t.allowedName, s.owner, catalog.ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// touchSession returns the session whose cookie hashes to hash and records
// now as its last use, in one transaction. live says whether the session
// stands at now (not ended by the clock, its owner, read in the same
// transaction, still allowed in); one that does not is deleted. A session
// that is missing or deleted gives t.gone.
func (d *DB) touchSession(ctx context.Context, t sessionTable, hash string, now time.Time,
	live func(tx *sql.Tx, s sessionRow, now time.Time) (bool, error)) (sessionRow, error) {
	what := "touch " + t.what
	now = stampOrZero(now)
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return sessionRow{}, fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	s, err := t.scan(tx.QueryRowContext(ctx, `SELECT `+t.columns()+` FROM `+t.table+` WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return sessionRow{}, t.gone
	}
	if err != nil {
		return sessionRow{}, fmt.Errorf("%s: %w", what, err)
	}
	ok, err := live(tx, s, now)
	if errors.Is(err, catalog.ErrNotFound) {
		ok, err = false, nil // an owner that is gone keeps no session
	}
	switch { // the session ends, or is seen now
	case err != nil:
	case !ok:
		_, err = tx.ExecContext(ctx, `DELETE FROM `+t.table+` WHERE hash = ?`, hash)
	case now.After(s.lastSeen):
		_, err = tx.ExecContext(ctx, `UPDATE `+t.table+` SET last_seen = ? WHERE hash = ?`, now.UnixMilli(), hash)
		s.lastSeen = now
	}
	if err == nil {
		err = tx.Commit()
	}
	switch {
	case err != nil:
		return sessionRow{}, fmt.Errorf("%s: %w", what, err)
	case !ok:
		return sessionRow{}, t.gone
	}
	return s, nil
}

// scan reads a row of the table's columns.
func (t sessionTable) scan(r rowScanner) (sessionRow, error) {
	var s sessionRow
	var created, seen int64
	dest := []any{&s.hash, &s.owner, &created, &seen}
	if t.ip {
		dest = []any{&s.hash, &s.owner, &s.ip, &created, &seen}
	}
	if err := r.Scan(dest...); err != nil {
		return sessionRow{}, err
	}
	s.created, s.lastSeen = fromMillis(created), fromMillis(seen)
	return s, nil
}

// endSession deletes one session; ending one that is gone is no error.
func (d *DB) endSession(ctx context.Context, t sessionTable, hash string) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM `+t.table+` WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("end %s: %w", t.what, err)
	}
	return nil
}
