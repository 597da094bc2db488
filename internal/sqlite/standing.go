package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
)

// An account's standing: disabled or enabled together with the other
// live accounts of its folded address, held by an operator's suspension
// of one of its keys, and the accounts that share an address (made before
// addresses were folded).

// DuplicateAccounts returns the live accounts sharing a folded address,
// grouped by it, oldest first within each.
func (d *DB) DuplicateAccounts(ctx context.Context) ([]account.Account, error) {
	return queryAll(ctx, d, "duplicate accounts", scanAccount, `SELECT `+accountColumns+` FROM accounts
		WHERE deleted_at = 0 AND email_key IN (
			SELECT email_key FROM accounts WHERE deleted_at = 0 GROUP BY email_key HAVING COUNT(*) > 1)
		ORDER BY email_key, id`)
}

// ListAccounts returns every account, oldest first.
func (d *DB) ListAccounts(ctx context.Context) ([]account.Account, error) {
	return queryAll(ctx, d, "list accounts", scanAccount, `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
}

// SetAccountDisabled disables an account and every live account of its
// folded address (suspending their active keys, marked as suspended by
// the account, and ending their sessions) or enables them (resuming the
// keys so marked), in one transaction. Keys change with updated_at moved,
// so the replicas' caches follow at their next sync.
func (d *DB) SetAccountDisabled(ctx context.Context, id int64, disabled bool) (account.Account, error) {
	what := fmt.Sprintf("disable account %d", id)
	if !disabled {
		what = fmt.Sprintf("enable account %d", id)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return account.Account{}, fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	group, err := accountGroup(ctx, tx, id)
	if err != nil {
		return account.Account{}, fmt.Errorf("%s: %w", what, err)
	}
	// updated_at only moves forward (see updateKey).
	keyStamp := d.now().UTC().Truncate(time.Millisecond).UnixMilli()
	keys := `UPDATE api_keys SET state = 'active', suspended_by_account = 0, updated_at = MAX(updated_at, ?)
		WHERE account_id = ? AND state = 'suspended' AND suspended_by_account = 1`
	if disabled {
		keys = `UPDATE api_keys SET state = 'suspended', suspended_by_account = 1, updated_at = MAX(updated_at, ?)
			WHERE account_id = ? AND state = 'active'`
	}
	var a account.Account
	for _, member := range group {
		got, err := scanAccount(tx.QueryRowContext(ctx, `UPDATE accounts SET disabled = ? WHERE id = ? RETURNING `+accountColumns, disabled, member))
		if err == nil {
			_, err = tx.ExecContext(ctx, keys, keyStamp, member)
		}
		if err == nil && disabled {
			_, err = tx.ExecContext(ctx, accountSessions.endAllOf(), member)
		}
		if err != nil {
			return account.Account{}, fmt.Errorf("%s: %w", what, err)
		}
		if member == id {
			a = got
		}
	}
	if err := tx.Commit(); err != nil {
		return account.Account{}, fmt.Errorf("%s: %w", what, err)
	}
	return a, nil
}

// accountGroup is the account id and the other live accounts of its
// folded address, id first; an unknown id gives catalog.ErrNotFound.
func accountGroup(ctx context.Context, tx *sql.Tx, id int64) ([]int64, error) {
	a, err := scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
	if err != nil {
		return nil, err
	}
	group := []int64{id}
	if a.Deleted() {
		return group, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM accounts WHERE email_key = (SELECT email_key FROM accounts WHERE id = ?)
		AND deleted_at = 0 AND id <> ? ORDER BY id`, id, id)
	if err != nil {
		return nil, err
	}
	others, err := collect(rows, "accounts of an address", func(r *sql.Rows) (int64, error) {
		var n int64
		return n, r.Scan(&n)
	})
	return append(group, others...), err
}

// ReleaseKeyHold ends the account's hold (see account.Account.HeldSince).
func (d *DB) ReleaseKeyHold(ctx context.Context, id int64) (account.Account, error) {
	return queryOne(ctx, d, fmt.Sprintf("release the hold of account %d", id), scanAccount,
		`UPDATE accounts SET held_since = 0 WHERE id = ? RETURNING `+accountColumns, id)
}
