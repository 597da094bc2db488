package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ apikey.Store = (*DB)(nil)

const keyColumns = `id, prefix, hash, name, email, tier, state, per_minute, per_day, origins, account_id, expires_at, created_at, updated_at`

// CreateKey stores a new key (see apikey.Store). The table's trigger
// announces it on KeysChannel when the insert commits.
func (d *DB) CreateKey(ctx context.Context, k apikey.Key) (apikey.Key, error) {
	return d.insertKey(ctx, d.pool, k, "")
}

// querier is the pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// insertKey stores a new key through q (apikey.Key.ForCreate applied),
// stamped with the store's clock; replaces is the prefix of the key it
// replaces by a roll, or "".
func (d *DB) insertKey(ctx context.Context, q querier, k apikey.Key, replaces string) (apikey.Key, error) {
	k, err := k.ForCreate()
	if err != nil {
		return apikey.Key{}, err
	}
	now := d.stamp()
	k.CreatedAt, k.UpdatedAt = now, now
	k.ExpiresAt = stampOf(k.ExpiresAt)
	err = q.QueryRow(ctx, `INSERT INTO api_keys (prefix, hash, name, email, tier, state, per_minute, per_day, origins,
			account_id, expires_at, created_at, updated_at, replaces)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13) RETURNING id`,
		k.Prefix, k.Hash, k.Name, k.Email, string(k.Tier), string(k.State), k.PerMinute, k.PerDay, nonNil(k.Origins),
		k.AccountID, nullTime(k.ExpiresAt), now, replaces).Scan(&k.ID)
	if isUniqueViolation(err) {
		return apikey.Key{}, fmt.Errorf("postgres: create key %s: %w", k.Prefix, apikey.ErrKeyExists)
	}
	if err != nil {
		return apikey.Key{}, fail("create key "+k.Prefix, err)
	}
	return k, nil
}

// stamp is the clock's time as stored for keys: UTC, to the millisecond,
// like the SQLite backend, so both answer KeysChangedSince alike.
func (d *DB) stamp() time.Time { return stampOf(d.now()) }

// stampOf is t as stored: UTC, to the millisecond (as the SQLite backend
// keeps times); the zero time stays zero.
func stampOf(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Millisecond)
}

// nullTime is t as a nullable column: NULL for the zero time ("not set").
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = stampOf(t)
	return &t
}

// timeOf reads a nullable time column: NULL is the zero time.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// nonNil gives the origins column an empty array rather than NULL.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// KeyByHash returns the key with the given hash.
func (d *DB) KeyByHash(ctx context.Context, hash string) (apikey.Key, error) {
	k, err := scanKey(d.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if err != nil {
		return apikey.Key{}, keyErr("key by hash", err)
	}
	return k, nil
}

// KeyByPrefix returns the key with the given display prefix.
func (d *DB) KeyByPrefix(ctx context.Context, prefix string) (apikey.Key, error) {
	k, err := scanKey(d.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = $1`, prefix))
	if err != nil {
		return apikey.Key{}, keyErr("key "+prefix, err)
	}
	return k, nil
}

// ListKeys returns every key, oldest first.
func (d *DB) ListKeys(ctx context.Context) ([]apikey.Key, error) {
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id`)
}

// KeysChangedSince returns the keys updated at or after since.
func (d *DB) KeysChangedSince(ctx context.Context, since time.Time) ([]apikey.Key, error) {
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE updated_at >= $1 ORDER BY updated_at, id`, since)
}

func (d *DB) queryKeys(ctx context.Context, q string, args ...any) ([]apikey.Key, error) {
	rows, err := d.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fail("list keys", err)
	}
	defer rows.Close()
	var out []apikey.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fail("list keys", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fail("list keys", err)
	}
	return out, nil
}

// SetKeyState changes a key's state; a revoked key stays revoked. The
// state is the operator's from then on: enabling its account (see
// SetAccountDisabled) leaves it as set here. Suspending a key of an
// account holds the account (see account.Account.HeldSince); resuming
// the last key of it an operator suspended releases it. Both in one
// transaction.
func (d *DB) SetKeyState(ctx context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	if !s.Valid() {
		return apikey.Key{}, fmt.Errorf("postgres: set state of key %s: unknown state %q: %w", prefix, s, catalog.ErrInvalid)
	}
	var k apikey.Key
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		// The key's account is locked first, as every change of an
		// account and its keys does (see accountkeys.go).
		var owner int64
		err := tx.QueryRow(ctx, `SELECT account_id FROM api_keys WHERE prefix = $1`, prefix).Scan(&owner)
		if err == nil && owner != 0 {
			_, err = tx.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, owner)
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fail("set state of key "+prefix, err)
		}
		if k, err = d.updateKeyOn(ctx, tx, prefix, `state = $3, suspended_by_account = false`, string(s)); err != nil || k.AccountID == 0 {
			return err
		}
		switch s {
		case apikey.Suspended:
			_, err = tx.Exec(ctx, `UPDATE accounts SET held_since = $2 WHERE id = $1 AND held_since IS NULL`, k.AccountID, d.stamp())
		case apikey.Active:
			_, err = tx.Exec(ctx, `UPDATE accounts SET held_since = NULL WHERE id = $1 AND NOT EXISTS (
				SELECT 1 FROM api_keys WHERE account_id = $1 AND state = 'suspended' AND NOT suspended_by_account)`, k.AccountID)
		}
		if err != nil {
			return fail("hold the account of key "+prefix, err)
		}
		return nil
	})
	if err != nil {
		return apikey.Key{}, txErr("set state of key "+prefix, err)
	}
	return k, nil
}

// SetKeyTier changes a key's tier; a revoked key stays as it is.
func (d *DB) SetKeyTier(ctx context.Context, prefix string, tier apikey.Tier) (apikey.Key, error) {
	t, err := apikey.ParseTier(string(tier))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("postgres: set tier of key %s: %w", prefix, err)
	}
	return d.updateKey(ctx, prefix, `tier = $3`, string(t))
}

// SetKeyLimits sets a key's limit overrides; 0 means the tier's default.
func (d *DB) SetKeyLimits(ctx context.Context, prefix string, perMinute, perDay int64) (apikey.Key, error) {
	if perMinute < 0 || perDay < 0 {
		return apikey.Key{}, fmt.Errorf("postgres: set limits of key %s: negative limit: %w", prefix, catalog.ErrInvalid)
	}
	return d.updateKey(ctx, prefix, `per_minute = $3, per_day = $4`, perMinute, perDay)
}

// SetKeyExpiry sets the moment a key stops working (zero: never).
func (d *DB) SetKeyExpiry(ctx context.Context, prefix string, at time.Time) (apikey.Key, error) {
	return d.updateKey(ctx, prefix, `expires_at = $3`, nullTime(at))
}

// updateKey applies set (whose parameters start at $3) to a key that is
// not revoked, in one statement, and returns the key as updated. When no
// row qualifies it tells a missing key from a revoked one.
func (d *DB) updateKey(ctx context.Context, prefix, set string, args ...any) (apikey.Key, error) {
	return d.updateKeyOn(ctx, d.pool, prefix, set, args...)
}

// updateKeyOn is updateKey through q (a transaction's, or the pool).
func (d *DB) updateKeyOn(ctx context.Context, q querier, prefix, set string, args ...any) (apikey.Key, error) {
	// updated_at only moves forward, so KeysChangedSince never misses a change.
	update := `UPDATE api_keys SET ` + set + `, updated_at = GREATEST($2, updated_at)
		WHERE prefix = $1 AND state <> 'revoked' RETURNING ` + keyColumns
	k, err := scanKey(q.QueryRow(ctx, update, append([]any{prefix, d.stamp()}, args...)...))
	if err == nil {
		return k, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return apikey.Key{}, fail("update key "+prefix, err)
	}
	var state string
	err = q.QueryRow(ctx, `SELECT state FROM api_keys WHERE prefix = $1`, prefix).Scan(&state)
	switch {
	case err == nil && apikey.State(state) == apikey.Revoked:
		return apikey.Key{}, fmt.Errorf("postgres: update key %s: %w", prefix, apikey.ErrRevoked)
	case err == nil:
		// Revoked is final, so a live key found now was created after the
		// update looked: at that moment it was missing.
		return apikey.Key{}, fmt.Errorf("postgres: update key %s: %w", prefix, catalog.ErrNotFound)
	}
	return apikey.Key{}, keyErr("update key "+prefix, err)
}

// keyErr maps a missing row to catalog.ErrNotFound.
func keyErr(what string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: %s: %w", what, catalog.ErrNotFound)
	}
	return fail(what, err)
}

func scanKey(r pgx.Row) (apikey.Key, error) {
	var k apikey.Key
	var tier, state string
	var expires *time.Time
	err := r.Scan(&k.ID, &k.Prefix, &k.Hash, &k.Name, &k.Email, &tier, &state, &k.PerMinute, &k.PerDay, &k.Origins,
		&k.AccountID, &expires, &k.CreatedAt, &k.UpdatedAt)
	if err != nil {
		return apikey.Key{}, err
	}
	k.Tier, k.State = apikey.Tier(tier), apikey.State(state)
	if len(k.Origins) == 0 {
		k.Origins = nil
	}
	k.ExpiresAt = timeOf(expires)
	k.CreatedAt, k.UpdatedAt = k.CreatedAt.UTC(), k.UpdatedAt.UTC()
	return k, nil
}
