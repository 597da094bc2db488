package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// An account's keys are made and rolled in a transaction that first locks
// the account's row: of two made at once, on one replica or two, the
// second waits for the first to commit, then counts its key, so keys made
// at once never pass the rules. Every transaction that changes both an
// account and its keys locks the account first, so none waits for
// another in a circle.

// liveKeys is the condition of a key that counts (account.Live) at the
// time given as $2.
const liveKeys = `state <> 'revoked' AND (expires_at IS NULL OR expires_at > $2)`

// CreateAccountKey stores a key of a live, enabled account within the
// rules, in one transaction.
func (d *DB) CreateAccountKey(ctx context.Context, k apikey.Key, r account.KeyRules) (apikey.Key, error) {
	if _, err := k.ForCreate(); err != nil {
		return apikey.Key{}, err
	}
	var made apikey.Key
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		a, err := lockAccount(ctx, tx, k.AccountID)
		if err == nil {
			err = keysAllowed(a)
		}
		if err == nil {
			err = keyCounts(ctx, tx, k.AccountID, r, true)
		}
		if err == nil {
			made, err = d.insertKey(ctx, tx, k, "")
		}
		return err
	})
	if err != nil {
		return apikey.Key{}, txErr(fmt.Sprintf("create a key of account %d", k.AccountID), err)
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
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		a, err := lockAccount(ctx, tx, k.AccountID)
		if err != nil {
			return err
		}
		before, err = scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = $1 FOR UPDATE`, old))
		switch {
		case err != nil:
			return err
		case before.AccountID == 0 || before.AccountID != k.AccountID:
			return fmt.Errorf("key %s is not the account's: %w", old, catalog.ErrNotFound)
		}
		if err = keysAllowed(a); err == nil {
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
		if stopAt.IsZero() {
			before, err = d.updateKeyOn(ctx, tx, old, `state = 'revoked', suspended_by_account = false`)
		} else {
			before, err = d.updateKeyOn(ctx, tx, old, `expires_at = $3`, nullTime(stopAt))
		}
		return err
	})
	if err != nil {
		return apikey.Key{}, apikey.Key{}, txErr("roll key "+old, err)
	}
	return before, made, nil
}

// lockAccount reads the account, locking its row for the transaction.
func lockAccount(ctx context.Context, tx pgx.Tx, id int64) (account.Account, error) {
	return scanAccount(tx.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1 FOR UPDATE`, id))
}

// keysAllowed refuses a key of an account that is deleted or disabled
// (catalog.ErrNotFound), or held (account.ErrKeysHeld).
func keysAllowed(a account.Account) error {
	switch {
	case a.Deleted() || a.Disabled:
		return fmt.Errorf("account %d is deleted or disabled: %w", a.ID, catalog.ErrNotFound)
	case a.Held():
		return account.ErrKeysHeld
	}
	return nil
}

// keyCounts refuses a key of the account under r: past the hour's keys,
// or, when the key adds to those that count (adds), at the maximum. A
// zero Max or PerHour does not apply.
func keyCounts(ctx context.Context, tx pgx.Tx, accountID int64, r account.KeyRules, adds bool) error {
	now := stampOf(r.Now)
	var made, live int
	err := tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM api_keys WHERE account_id = $1 AND created_at > $3),
			(SELECT COUNT(*) FROM api_keys WHERE account_id = $1 AND `+liveKeys+`)`,
		accountID, now, now.Add(-time.Hour)).Scan(&made, &live)
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
func rollable(ctx context.Context, tx pgx.Tx, k apikey.Key, now time.Time) error {
	if k.State != apikey.Active || !k.ExpiresAt.IsZero() {
		return account.ErrNotRollable
	}
	var pending bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys WHERE prefix = (SELECT replaces FROM api_keys WHERE prefix = $1)
		AND `+liveKeys+`)`, k.Prefix, stampOf(now)).Scan(&pending)
	switch {
	case err != nil:
		return err
	case pending:
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
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 AND `+liveKeys+` ORDER BY id DESC`,
		accountID, stampOf(now))
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
	// A revoked key stopped when it was revoked: its last change.
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 AND id < $2
		AND ((state = 'revoked' AND updated_at >= $3) OR (state <> 'revoked' AND expires_at <= $4 AND expires_at >= $3))
		ORDER BY id DESC LIMIT $5`, accountID, before, stampOf(q.Since), stampOf(q.Now), q.Limit)
}
