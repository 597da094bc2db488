package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ apikey.Store = (*DB)(nil)

const keyColumns = `id, prefix, hash, name, email, tier, state, per_minute, per_day, origins, account_id, expires_at, created_at, updated_at`

// CreateKey stores a new key (see apikey.Store).
func (d *DB) CreateKey(ctx context.Context, k apikey.Key) (apikey.Key, error) {
	return d.insertKey(ctx, d.db, k, "")
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertKey stores a new key through q (apikey.Key.ForCreate applied),
// stamped with the store's clock; replaces is the prefix of the key it
// replaces by a roll, or "".
func (d *DB) insertKey(ctx context.Context, q execer, k apikey.Key, replaces string) (apikey.Key, error) {
	k, err := k.ForCreate()
	if err != nil {
		return apikey.Key{}, err
	}
	origins, err := json.Marshal(nonNil(k.Origins))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("create key %s: %w", k.Prefix, err)
	}
	now := d.now().UTC().Truncate(time.Millisecond)
	k.CreatedAt, k.UpdatedAt = now, now
	k.ExpiresAt = stampOrZero(k.ExpiresAt)
	res, err := q.ExecContext(ctx, `INSERT INTO api_keys (prefix, hash, name, email, tier, state, per_minute, per_day, origins,
			account_id, expires_at, created_at, updated_at, replaces)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.Prefix, k.Hash, k.Name, k.Email, string(k.Tier), string(k.State), k.PerMinute, k.PerDay, string(origins),
		k.AccountID, millis(k.ExpiresAt), now.UnixMilli(), now.UnixMilli(), replaces)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return apikey.Key{}, fmt.Errorf("create key %s: %w", k.Prefix, apikey.ErrKeyExists)
		}
		return apikey.Key{}, fmt.Errorf("create key %s: %w", k.Prefix, err)
	}
	if k.ID, err = res.LastInsertId(); err != nil {
		return apikey.Key{}, fmt.Errorf("create key %s: %w", k.Prefix, err)
	}
	return k, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// KeyByHash returns the key with the given hash.
func (d *DB) KeyByHash(ctx context.Context, hash string) (apikey.Key, error) {
	k, err := scanKey(d.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("key by hash: %w", err)
	}
	return k, nil
}

// KeyByPrefix returns the key with the given display prefix.
func (d *DB) KeyByPrefix(ctx context.Context, prefix string) (apikey.Key, error) {
	k, err := scanKey(d.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = ?`, prefix))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("key %s: %w", prefix, err)
	}
	return k, nil
}

// ListKeys returns every key, oldest first.
func (d *DB) ListKeys(ctx context.Context) ([]apikey.Key, error) {
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id`)
}

// KeysChangedSince returns the keys updated at or after since.
func (d *DB) KeysChangedSince(ctx context.Context, since time.Time) ([]apikey.Key, error) {
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE updated_at >= ? ORDER BY updated_at, id`, since.UnixMilli())
}

func (d *DB) queryKeys(ctx context.Context, q string, args ...any) ([]apikey.Key, error) {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []apikey.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

// SetKeyState changes a key's state; a revoked key stays revoked. The
// state is the operator's from then on: enabling its account (see
// SetAccountDisabled) leaves it as set here. Suspending a key of an
// account holds the account (see account.Account.HeldSince); resuming
// the last key of it an operator suspended releases it.
func (d *DB) SetKeyState(ctx context.Context, prefix string, s apikey.State) (apikey.Key, error) {
	if !s.Valid() {
		return apikey.Key{}, fmt.Errorf("set state of key %s: unknown state %q: %w", prefix, s, catalog.ErrInvalid)
	}
	return d.updateKeyThen(ctx, prefix, func(tx *sql.Tx, k apikey.Key) error {
		if k.AccountID == 0 {
			return nil
		}
		var err error
		switch s {
		case apikey.Suspended:
			_, err = tx.ExecContext(ctx, `UPDATE accounts SET held_since = ? WHERE id = ? AND held_since = 0`, stampOrZero(d.now()).UnixMilli(), k.AccountID)
		case apikey.Active:
			_, err = tx.ExecContext(ctx, `UPDATE accounts SET held_since = 0 WHERE id = ? AND NOT EXISTS (
				SELECT 1 FROM api_keys WHERE account_id = ? AND state = 'suspended' AND suspended_by_account = 0)`, k.AccountID, k.AccountID)
		}
		return err
	}, `state = ?, suspended_by_account = 0`, string(s))
}

// SetKeyTier changes a key's tier; a revoked key stays as it is.
func (d *DB) SetKeyTier(ctx context.Context, prefix string, tier apikey.Tier) (apikey.Key, error) {
	t, err := apikey.ParseTier(string(tier))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("set tier of key %s: %w", prefix, err)
	}
	return d.updateKey(ctx, prefix, `tier = ?`, string(t))
}

// SetKeyLimits sets a key's limit overrides; 0 means the tier's default.
func (d *DB) SetKeyLimits(ctx context.Context, prefix string, perMinute, perDay int64) (apikey.Key, error) {
	if perMinute < 0 || perDay < 0 {
		return apikey.Key{}, fmt.Errorf("set limits of key %s: negative limit: %w", prefix, catalog.ErrInvalid)
	}
	return d.updateKey(ctx, prefix, `per_minute = ?, per_day = ?`, perMinute, perDay)
}

// SetKeyExpiry sets the moment a key stops working (zero: never).
func (d *DB) SetKeyExpiry(ctx context.Context, prefix string, at time.Time) (apikey.Key, error) {
	return d.updateKey(ctx, prefix, `expires_at = ?`, millis(at))
}

// updateKey applies set to a key that is not revoked, in one transaction,
// and returns the key as updated.
func (d *DB) updateKey(ctx context.Context, prefix, set string, args ...any) (apikey.Key, error) {
	return d.updateKeyThen(ctx, prefix, nil, set, args...)
}

// updateKeyThen is updateKey that also runs then (when not nil) in the
// transaction, on the key as updated.
func (d *DB) updateKeyThen(ctx context.Context, prefix string, then func(*sql.Tx, apikey.Key) error, set string, args ...any) (apikey.Key, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, err)
	}
	defer tx.Rollback()
	k, err := scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = ?`, prefix))
	if err != nil {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, err)
	}
	if k.State == apikey.Revoked {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, apikey.ErrRevoked)
	}
	// updated_at only moves forward, so KeysChangedSince never misses a change.
	now := max(d.now().UTC().Truncate(time.Millisecond).UnixMilli(), k.UpdatedAt.UnixMilli())
	args = append(append(args, now), prefix)
	if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET `+set+`, updated_at = ? WHERE prefix = ?`, args...); err != nil {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, err)
	}
	k, err = scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE prefix = ?`, prefix))
	if err == nil && then != nil {
		err = then(tx, k)
	}
	if err != nil {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, err)
	}
	if err := tx.Commit(); err != nil {
		return apikey.Key{}, fmt.Errorf("update key %s: %w", prefix, err)
	}
	return k, nil
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

func scanKey(r rowScanner) (apikey.Key, error) {
	var k apikey.Key
	var tier, state, origins string
	var expires, created, updated int64
	err := r.Scan(&k.ID, &k.Prefix, &k.Hash, &k.Name, &k.Email, &tier, &state, &k.PerMinute, &k.PerDay, &origins,
		&k.AccountID, &expires, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return apikey.Key{}, catalog.ErrNotFound
	}
	if err != nil {
		return apikey.Key{}, err
	}
	k.Tier, k.State = apikey.Tier(tier), apikey.State(state)
	if err := json.Unmarshal([]byte(origins), &k.Origins); err != nil {
		return apikey.Key{}, fmt.Errorf("key %s: origins: %w", k.Prefix, err)
	}
	if len(k.Origins) == 0 {
		k.Origins = nil
	}
	k.ExpiresAt = fromMillis(expires)
	k.CreatedAt, k.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return k, nil
}

// millis is t as stored: Unix milliseconds, 0 for the zero time ("not set").
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMillis reads what millis stored: 0 is the zero time.
func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// stampOrZero is t as it reads back from the store: UTC, to the
// millisecond; the zero time stays zero.
func stampOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Millisecond)
}
