package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// An account's keys are made and rolled in a transaction that takes the
// write lock at BEGIN (_txlock=immediate): the rules are checked and the
// key stored with no other writer in between, so keys made at once, on
// one process or several, never pass them.

// liveKeys is the condition of a key that counts (account.Live) at the
// time given as its one parameter.
const liveKeys = `state <> 'revoked' AND (expires_at = 0 OR expires_at > ?)`

// CreateAccountKey stores a key of a live, enabled account within the
// rules, in one transaction.
func (d *DB) CreateAccountKey(ctx context.Context, k apikey.Key, r account.KeyRules) (apikey.Key, error) {
	if _, err := k.ForCreate(); err != nil {
		return apikey.Key{}, err
	}
	var made apikey.Key
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		err := keysAllowed(ctx, tx, k.AccountID)
		if err == nil {
			err = keyCounts(ctx, tx, k.AccountID, r, true)
		}
		if err == nil {
			made, err = d.insertKey(ctx, tx, k, "")
		}
		return err
	})
	if err != nil {
		return apikey.Key{}, fmt.Errorf("create a key of account %d: %w", k.AccountID, err)
	}
	return made, nil
}

// RollAccountKey replaces an active key of the account by k, in one
// transaction: k is stored naming the key it replaces, and the old one
// ends at stopAt (revoked now when stopAt is zero).
func (d *DB) RollAccountKey(ctx context.Context, old string, k apikey.Key, stopAt time.Time, r account.KeyRules) (apikey.Key, apikey.Key, error) {
	if _, err := k.ForCreate(); err != nil {
		return apikey.Key{}, apikey.Key{}, err
	}
	var before, made apikey.Key
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		before, err = scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = ?`, old))
		switch {
		case err != nil:
			return err
		case before.AccountID == 0 || before.AccountID != k.AccountID:
			return fmt.Errorf("key %s is not the account's: %w", old, catalog.ErrNotFound)
		}
		if err = keysAllowed(ctx, tx, k.AccountID); err == nil {
			err = rollable(ctx, tx, before, r.Now)
		}
		if err == nil {
			err = keyCounts(ctx, tx, k.AccountID, r, !stopAt.IsZero())
		}
		if err == nil {
			made, err = d.insertKey(ctx, tx, k, old)
		}
		if err != nil {
			return err
		}
		stamp := max(d.now().UTC().Truncate(time.Millisecond).UnixMilli(), before.UpdatedAt.UnixMilli())
		q, args := `UPDATE api_keys SET expires_at = ?, updated_at = ?`, []any{millis(stampOrZero(stopAt)), stamp, old}
		if stopAt.IsZero() {
			q, args = `UPDATE api_keys SET state = 'revoked', suspended_by_account = 0, updated_at = ?`, []any{stamp, old}
		}
		before, err = scanKey(tx.QueryRowContext(ctx, q+` WHERE prefix = ? RETURNING `+keyColumns, args...))
		return err
	})
	if err != nil {
		return apikey.Key{}, apikey.Key{}, fmt.Errorf("roll key %s: %w", old, err)
	}
	return before, made, nil
}

// keysAllowed refuses a key of an account that is unknown, deleted or
// disabled (catalog.ErrNotFound), or held (account.ErrKeysHeld).
func keysAllowed(ctx context.Context, tx *sql.Tx, accountID int64) error {
	a, err := scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, accountID))
	switch {
	case err != nil:
		return err
	case a.Deleted() || a.Disabled:
		return fmt.Errorf("account %d is deleted or disabled: %w", accountID, catalog.ErrNotFound)
	case a.Held():
		return account.ErrKeysHeld
	}
	return nil
}

// keyCounts refuses a key of the account under r: past the hour's keys,
// or, when the key adds to those that count (adds), at the maximum. A
// zero Max or PerHour does not apply.
func keyCounts(ctx context.Context, tx *sql.Tx, accountID int64, r account.KeyRules, adds bool) error {
	now := stampOrZero(r.Now).UnixMilli()
	var made, live int
	err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM api_keys WHERE account_id = ? AND created_at > ?),
			(SELECT COUNT(*) FROM api_keys WHERE account_id = ? AND `+liveKeys+`)`,
		accountID, now-time.Hour.Milliseconds(), accountID, now).Scan(&made, &live)
	switch {
	case err != nil:
		return err
	case r.PerHour > 0 && made >= r.PerHour:
		return account.ErrKeyRate
	case r.Max > 0 && adds && live >= r.Max:
		return account.ErrTooManyKeys
	}
	return nil
}

// rollable refuses a roll of k at now: a key that is not active or was
// rolled already (ErrNotRollable), or whose predecessor still works
// (ErrRollPending).
func rollable(ctx context.Context, tx *sql.Tx, k apikey.Key, now time.Time) error {
	if k.State != apikey.Active || !k.ExpiresAt.IsZero() {
		return account.ErrNotRollable
	}
	var pending int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE prefix = (SELECT replaces FROM api_keys WHERE prefix = ?)
		AND `+liveKeys, k.Prefix, stampOrZero(now).UnixMilli()).Scan(&pending)
	switch {
	case err != nil:
		return err
	case pending > 0:
		return account.ErrRollPending
	}
	return nil
}

// LiveAccountKeys returns the keys of the account that count at now,
// newest first.
func (d *DB) LiveAccountKeys(ctx context.Context, accountID int64, now time.Time) ([]apikey.Key, error) {
	if accountID == 0 {
		return nil, nil
	}
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = ? AND `+liveKeys+` ORDER BY id DESC`,
		accountID, stampOrZero(now).UnixMilli())
}

// EndedAccountKeys returns a page of the account's keys that had stopped
// working by q.Now, at or after q.Since, newest first.
func (d *DB) EndedAccountKeys(ctx context.Context, accountID int64, q account.EndedKeys) ([]apikey.Key, error) {
	if accountID == 0 || q.Limit < 1 {
		return nil, nil
	}
	before := q.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	now, since := stampOrZero(q.Now).UnixMilli(), millis(stampOrZero(q.Since))
	// A revoked key stopped when it was revoked: its last change.
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = ? AND id < ?
		AND ((state = 'revoked' AND updated_at >= ?) OR (state <> 'revoked' AND expires_at <> 0 AND expires_at <= ? AND expires_at >= ?))
		ORDER BY id DESC LIMIT ?`, accountID, before, since, now, since, q.Limit)
}

// inTx runs fn in a transaction, committed when fn returns nil.
func (d *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
