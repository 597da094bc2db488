package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/account"
)

// An account's standing: disabled or enabled together with the other
// live accounts of its folded address, held by an operator's suspension
// of one of its keys, and the accounts that share an address (made before
// addresses were folded).

// DuplicateAccounts returns the live accounts sharing a folded address,
// grouped by it, oldest first within each.
func (d *DB) DuplicateAccounts(ctx context.Context) ([]account.Account, error) {
	return d.queryAccounts(ctx, "duplicate accounts", `SELECT `+accountColumns+` FROM accounts
		WHERE deleted_at IS NULL AND email_key IN (
			SELECT email_key FROM accounts WHERE deleted_at IS NULL GROUP BY email_key HAVING COUNT(*) > 1)
		ORDER BY email_key, id`)
}

// SetAccountDisabled disables an account and every live account of its
// folded address (suspending their active keys, marked as suspended by
// the account, and ending their sessions) or enables them (resuming the
// keys so marked), in one transaction; the key table's trigger tells the
// replicas.
func (d *DB) SetAccountDisabled(ctx context.Context, id int64, disabled bool) (account.Account, error) {
	what := fmt.Sprintf("disable account %d", id)
	if !disabled {
		what = fmt.Sprintf("enable account %d", id)
	}
	var a account.Account
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		group, err := accountGroup(ctx, tx, id)
		if err != nil {
			return err
		}
		batch := &pgx.Batch{}
		batch.Queue(`UPDATE accounts SET disabled = $2 WHERE id = ANY($1)`, group, disabled)
		// updated_at only moves forward (see updateKey).
		if disabled {
			batch.Queue(`UPDATE api_keys SET state = 'suspended', suspended_by_account = true, updated_at = GREATEST(updated_at, $2)
				WHERE account_id = ANY($1) AND state = 'active'`, group, d.stamp())
			batch.Queue(`DELETE FROM sessions WHERE account_id = ANY($1)`, group)
		} else {
			batch.Queue(`UPDATE api_keys SET state = 'active', suspended_by_account = false, updated_at = GREATEST(updated_at, $2)
				WHERE account_id = ANY($1) AND state = 'suspended' AND suspended_by_account`, group, d.stamp())
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		a, err = scanAccount(tx.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return account.Account{}, txErr(what, err)
	}
	return a, nil
}

// accountGroup is the account id and the other live accounts of its
// folded address, locked for the transaction in id order (so that two
// transactions on one address never wait for each other); an unknown id
// gives pgx.ErrNoRows.
func accountGroup(ctx context.Context, tx pgx.Tx, id int64) ([]int64, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM accounts WHERE id = $1
		OR (deleted_at IS NULL AND email_key <> '' AND email_key = (SELECT email_key FROM accounts WHERE id = $1 AND deleted_at IS NULL))
		ORDER BY id FOR UPDATE`, id)
	if err != nil {
		return nil, err
	}
	group, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err == nil && len(group) == 0 {
		err = pgx.ErrNoRows
	}
	return group, err
}

// ReleaseKeyHold ends the account's hold (see account.Account.HeldSince).
func (d *DB) ReleaseKeyHold(ctx context.Context, id int64) (account.Account, error) {
	a, err := scanAccount(d.pool.QueryRow(ctx, `UPDATE accounts SET held_since = NULL WHERE id = $1 RETURNING `+accountColumns, id))
	if err != nil {
		return account.Account{}, keyErr(fmt.Sprintf("release the hold of account %d", id), err)
	}
	return a, nil
}
