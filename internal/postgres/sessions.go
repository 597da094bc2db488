package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The portal's sessions (table sessions, of accounts) and the dashboard's
// (admin_sessions, of admin users) are kept one way, shared by every
// replica: a row per signed-in browser keyed by the hash of its cookie,
// made only for an owner allowed in, touched under its row lock in a
// transaction that deletes it once it has ended, and the rows ended by the
// clock of a new one pruned as it is made. A sessionTable says where the
// two differ.

// sessionTable is one table of browser sessions.
type sessionTable struct {
	// what names a session in errors ("session", "admin session").
	what string
	// table is the table; owner the column naming the session's owner.
	table, owner string
	// ip: the table keeps the client IP at sign-in.
	ip bool
	// allowed is the FROM clause that yields the id of an owner a session
	// may be made for, given the owner's id as $3; allowedName names such
	// an owner in errors.
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

// endAllOf is the statement that ends every session of one owner ($1), in
// whatever transaction or batch runs it.
func (t sessionTable) endAllOf() string {
	return `DELETE FROM ` + t.table + ` WHERE ` + t.owner + ` = $1`
}

// createSession stores s (hash, owner, ip, created; last seen = created)
// for an owner t allows, after pruning the sessions ended by s's creation
// time so the table stays small. Any other owner gives an error wrapping
// catalog.ErrNotFound.
func (d *DB) createSession(ctx context.Context, t sessionTable, s sessionRow) error {
	what := "create " + t.what
	if s.hash == "" || s.created.IsZero() {
		return fmt.Errorf("postgres: %s: hash and creation time are required: %w", what, catalog.ErrInvalid)
	}
	created := stampOf(s.created)
	if err := d.prune(ctx, t.table, `last_seen <= $1 OR created_at <= $2`, created.Add(-t.idle), created.Add(-t.max)); err != nil {
		return fail(what, err)
	}
	values, args := `$1, id, $2, $2`, []any{s.hash, created, s.owner}
	if t.ip {
		values, args = `$1, id, $4, $2, $2`, append(args, s.ip)
	}
	tag, err := d.pool.Exec(ctx, `INSERT INTO `+t.table+` (`+t.columns()+`) SELECT `+values+` FROM `+t.allowed, args...)
	if err != nil {
		return fail(what, err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("postgres: %s: no %s %d: %w", what, t.allowedName, s.owner, catalog.ErrNotFound)
	}
	return nil
}

// touchSession returns the session whose cookie hashes to hash and records
// now as its last use, in one transaction holding the row's lock. live
// says whether the session stands at now (not ended by the clock, its
// owner, read in the same transaction, still allowed in); one that does
// not is deleted. A session that is missing or deleted gives t.gone.
func (d *DB) touchSession(ctx context.Context, t sessionTable, hash string, now time.Time,
	live func(tx pgx.Tx, s sessionRow, now time.Time) (bool, error)) (sessionRow, error) {
	now = stampOf(now)
	var s sessionRow
	gone := false
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		s, err = t.scan(tx.QueryRow(ctx, `SELECT `+t.columns()+` FROM `+t.table+` WHERE hash = $1 FOR UPDATE`, hash))
		if errors.Is(err, pgx.ErrNoRows) {
			gone = true
			return nil
		}
		if err != nil {
			return err
		}
		ok, err := live(tx, s, now)
		if errors.Is(err, pgx.ErrNoRows) {
			ok, err = false, nil // an owner that is gone keeps no session
		}
		switch { // the session ends, or is seen now
		case err != nil:
			return err
		case !ok:
			gone = true
			_, err = tx.Exec(ctx, `DELETE FROM `+t.table+` WHERE hash = $1`, hash)
		case now.After(s.lastSeen):
			_, err = tx.Exec(ctx, `UPDATE `+t.table+` SET last_seen = $2 WHERE hash = $1`, hash, now)
			s.lastSeen = now
		}
		return err
	})
	switch {
	case err != nil:
		return sessionRow{}, fail("touch "+t.what, err)
	case gone:
		return sessionRow{}, t.gone
	}
	return s, nil
}

// scan reads a row of the table's columns.
func (t sessionTable) scan(r pgx.Row) (sessionRow, error) {
	var s sessionRow
	dest := []any{&s.hash, &s.owner, &s.created, &s.lastSeen}
	if t.ip {
		dest = []any{&s.hash, &s.owner, &s.ip, &s.created, &s.lastSeen}
	}
	if err := r.Scan(dest...); err != nil {
		return sessionRow{}, err
	}
	s.created, s.lastSeen = s.created.UTC(), s.lastSeen.UTC()
	return s, nil
}

// endSession deletes one session; ending one that is gone is no error.
func (d *DB) endSession(ctx context.Context, t sessionTable, hash string) error {
	if _, err := d.pool.Exec(ctx, `DELETE FROM `+t.table+` WHERE hash = $1`, hash); err != nil {
		return fail("end "+t.what, err)
	}
	return nil
}
