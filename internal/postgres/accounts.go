package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ account.Store = (*DB)(nil)

// The portal's rows are shared by every replica: a session made through
// one is touched through another, and of two uses of one sign-in link (on
// two replicas or one) the row lock lets exactly one mark it used.

const accountColumns = `id, email, created_at, deleted_at, disabled, held_since, duplicate_of`

// CreateSignInLink stores a sign-in link for email (normalised here; an
// address NormalizeEmail refuses gives its error). Links expired by the
// store's clock are dropped first, so the table stays small.
func (d *DB) CreateSignInLink(ctx context.Context, hash, email string, expires time.Time) error {
	email, err := account.NormalizeEmail(email)
	if err != nil {
		return err
	}
	if hash == "" || expires.IsZero() {
		return fmt.Errorf("postgres: create sign-in link: hash and expiry are required: %w", catalog.ErrInvalid)
	}
	if err := d.prune(ctx, `sign_in_links`, `expires_at <= $1`, d.stamp()); err != nil {
		return fail("create sign-in link", err)
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO sign_in_links (hash, email, expires_at) VALUES ($1, $2, $3)`,
		hash, email, stampOf(expires)); err != nil {
		return fail("create sign-in link", err)
	}
	return nil
}

// prune deletes the rows of table (keyed by hash) matching where, skipping
// rows another transaction holds: housekeeping never waits, so replicas
// pruning at once cannot deadlock. table and where are constants.
func (d *DB) prune(ctx context.Context, table, where string, args ...any) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM `+table+` WHERE hash IN (
		SELECT hash FROM `+table+` WHERE `+where+` FOR UPDATE SKIP LOCKED)`, args...)
	return err
}

// UseSignInLink consumes a link once and returns the live account of its
// address as account.FoldEmail spells it, made now if there is none, in
// one transaction.
func (d *DB) UseSignInLink(ctx context.Context, hash string, now time.Time) (account.Account, error) {
	now = stampOf(now)
	var a account.Account
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var email string
		err := tx.QueryRow(ctx, `UPDATE sign_in_links SET used_at = $2
			WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING email`, hash, now).Scan(&email)
		if errors.Is(err, pgx.ErrNoRows) {
			return account.ErrLinkInvalid
		}
		if err != nil {
			return err
		}
		key, err := account.FoldEmail(email)
		if err != nil {
			return err
		}
		a, err = scanAccount(tx.QueryRow(ctx, liveAccountOf, key, email))
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// Two links of one new address used at once: the second insert
		// waits for the first to commit, then reads its account.
		a, err = scanAccount(tx.QueryRow(ctx, `INSERT INTO accounts (email, email_key, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (email_key) WHERE deleted_at IS NULL AND duplicate_of = 0 DO NOTHING RETURNING `+accountColumns, email, key, now))
		if errors.Is(err, pgx.ErrNoRows) {
			a, err = scanAccount(tx.QueryRow(ctx, liveAccountOf, key, email))
		}
		return err
	})
	if err != nil {
		return account.Account{}, txErr("use sign-in link", err)
	}
	return a, nil
}

// liveAccountOf selects the live account of a folded address ($1): of
// duplicates, the one of the address as typed ($2), else the oldest.
const liveAccountOf = `SELECT ` + accountColumns + ` FROM accounts WHERE email_key = $1 AND deleted_at IS NULL
	ORDER BY email = $2 DESC, id LIMIT 1`

// SignInLinkEmail returns the address of a link that works at now,
// using nothing.
func (d *DB) SignInLinkEmail(ctx context.Context, hash string, now time.Time) (string, error) {
	var email string
	err := d.pool.QueryRow(ctx, `SELECT email FROM sign_in_links WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`,
		hash, stampOf(now)).Scan(&email)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", account.ErrLinkInvalid
	}
	if err != nil {
		return "", fail("read sign-in link", err)
	}
	return email, nil
}

// stampOrNow is t as stored, or the store's clock when t is zero: the
// time of a record its caller may leave to the store.
func (d *DB) stampOrNow(t time.Time) time.Time {
	if t.IsZero() {
		return d.stamp()
	}
	return stampOf(t)
}

// txErr is the error of a transaction: the domain's own errors as they
// are, a missing row as catalog.ErrNotFound, anything else through fail.
func txErr(what string, err error) error {
	switch {
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, catalog.ErrInvalid):
		return fmt.Errorf("postgres: %s: %w", what, err)
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres: %s: %w", what, catalog.ErrNotFound)
	}
	return fail(what, err)
}

// AccountByID returns an account, deleted or not.
func (d *DB) AccountByID(ctx context.Context, id int64) (account.Account, error) {
	a, err := scanAccount(d.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	if err != nil {
		return account.Account{}, keyErr(fmt.Sprintf("account %d", id), err)
	}
	return a, nil
}

// AccountByEmail returns the live account of email, folded here.
func (d *DB) AccountByEmail(ctx context.Context, email string) (account.Account, error) {
	email, err := account.NormalizeEmail(email)
	if err != nil {
		return account.Account{}, err
	}
	key, err := account.FoldEmail(email)
	if err != nil {
		return account.Account{}, err
	}
	a, err := scanAccount(d.pool.QueryRow(ctx, liveAccountOf, key, email))
	if err != nil {
		return account.Account{}, keyErr("account of "+email, err)
	}
	return a, nil
}

// ListAccounts returns every account, oldest first.
func (d *DB) ListAccounts(ctx context.Context) ([]account.Account, error) {
	return d.queryAccounts(ctx, "list accounts", `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
}

func (d *DB) queryAccounts(ctx context.Context, what, q string, args ...any) ([]account.Account, error) {
	rows, err := d.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fail(what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (account.Account, error) { return scanAccount(r) })
	if err != nil {
		return nil, fail(what, err)
	}
	return out, nil
}

// DeleteAccount, in one transaction, revokes the account's keys and
// erases their email (the table's trigger tells the replicas), erases the
// account's email (keeping the first deletion time), ends its sessions,
// drops its unused sign-in links and its tier requests (their free text
// is the developer's). Usage counts, kept by key prefix, stay. Deleting a
// deleted account again changes nothing more.
func (d *DB) DeleteAccount(ctx context.Context, id int64, now time.Time) error {
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		a, err := scanAccount(tx.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		batch := &pgx.Batch{}
		// updated_at only moves forward (see updateKey).
		batch.Queue(`UPDATE api_keys SET state = 'revoked', email = '', updated_at = GREATEST(updated_at, $2) WHERE account_id = $1`, id, d.stamp())
		batch.Queue(`UPDATE accounts SET email = '', email_key = '', deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL`, id, stampOf(now))
		batch.Queue(accountSessions.endAllOf(), id)
		batch.Queue(`DELETE FROM tier_requests WHERE account_id = $1`, id)
		if !a.Deleted() {
			batch.Queue(`DELETE FROM sign_in_links WHERE email = $1 AND used_at IS NULL`, a.Email)
		}
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return txErr(fmt.Sprintf("delete account %d", id), err)
	}
	return nil
}

func scanAccount(r pgx.Row) (account.Account, error) {
	var a account.Account
	var deleted, held *time.Time
	if err := r.Scan(&a.ID, &a.Email, &a.CreatedAt, &deleted, &a.Disabled, &held, &a.DuplicateOf); err != nil {
		return account.Account{}, err
	}
	a.CreatedAt, a.DeletedAt, a.HeldSince = a.CreatedAt.UTC(), timeOf(deleted), timeOf(held)
	return a, nil
}

// accountSessions are the portal's sessions: of live, enabled accounts.
var accountSessions = sessionTable{
	what: "session", table: "sessions", owner: "account_id",
	allowed: `accounts WHERE id = $3 AND deleted_at IS NULL AND NOT disabled`, allowedName: "live, enabled account",
	idle: account.SessionIdle, max: account.SessionMax, gone: account.ErrNoSession,
}

// CreateSession stores a session of a live, enabled account (otherwise an
// error wrapping catalog.ErrNotFound). Sessions expired at its CreatedAt are
// dropped first, so the table stays small.
func (d *DB) CreateSession(ctx context.Context, s account.Session) error {
	return d.createSession(ctx, accountSessions, sessionRow{hash: s.Hash, owner: s.AccountID, created: s.CreatedAt})
}

// TouchSession returns a live session and its account and records now as
// the session's LastSeen; an expired one (or one of a deleted or disabled
// account) is deleted and gives account.ErrNoSession.
func (d *DB) TouchSession(ctx context.Context, hash string, now time.Time) (account.Session, account.Account, error) {
	var a account.Account
	row, err := d.touchSession(ctx, accountSessions, hash, now, func(tx pgx.Tx, s sessionRow, now time.Time) (bool, error) {
		var err error
		a, err = scanAccount(tx.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, s.owner))
		return err == nil && !accountSession(s).Expired(now) && !a.Deleted() && !a.Disabled, err
	})
	if err != nil {
		return account.Session{}, account.Account{}, err
	}
	return accountSession(row), a, nil
}

// accountSession is a row of the portal's sessions.
func accountSession(s sessionRow) account.Session {
	return account.Session{Hash: s.hash, AccountID: s.owner, CreatedAt: s.created, LastSeen: s.lastSeen}
}

// EndSession deletes one session; ending one that is gone is no error.
func (d *DB) EndSession(ctx context.Context, hash string) error {
	return d.endSession(ctx, accountSessions, hash)
}

// EndSessions deletes every session of an account.
func (d *DB) EndSessions(ctx context.Context, accountID int64) error {
	if _, err := d.pool.Exec(ctx, accountSessions.endAllOf(), accountID); err != nil {
		return fail(fmt.Sprintf("end sessions of account %d", accountID), err)
	}
	return nil
}

// AccountKeys returns an account's keys, oldest first; account 0 (the
// operator's keys) has none.
func (d *DB) AccountKeys(ctx context.Context, accountID int64) ([]apikey.Key, error) {
	if accountID == 0 {
		return nil, nil
	}
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 ORDER BY id`, accountID)
}

const tierRequestColumns = `id, account_id, key_prefix, tier, use_case, volume, state, note, created_at, decided_at`

// CreateTierRequest stores a pending request of a live account (otherwise
// an error wrapping catalog.ErrNotFound); CreatedAt defaults to the
// store's clock.
func (d *DB) CreateTierRequest(ctx context.Context, r account.TierRequest) (account.TierRequest, error) {
	if err := r.Check(); err != nil {
		return account.TierRequest{}, err
	}
	stored, err := scanTierRequest(d.pool.QueryRow(ctx, `INSERT INTO tier_requests (account_id, key_prefix, tier, use_case, volume, state, created_at)
		SELECT id, $2, $3, $4, $5, 'pending', $6 FROM accounts WHERE id = $1 AND deleted_at IS NULL RETURNING `+tierRequestColumns,
		r.AccountID, r.KeyPrefix, string(r.Tier), r.UseCase, r.Volume, d.stampOrNow(r.CreatedAt)))
	if err != nil {
		return account.TierRequest{}, keyErr(fmt.Sprintf("create tier request: live account %d", r.AccountID), err)
	}
	return stored, nil
}

// TierRequests returns an account's requests, newest first.
func (d *DB) TierRequests(ctx context.Context, accountID int64) ([]account.TierRequest, error) {
	return d.queryTierRequests(ctx, `SELECT `+tierRequestColumns+` FROM tier_requests WHERE account_id = $1 ORDER BY id DESC`, accountID)
}

// PendingTierRequests returns every pending request, oldest first.
func (d *DB) PendingTierRequests(ctx context.Context) ([]account.TierRequest, error) {
	return d.queryTierRequests(ctx, `SELECT `+tierRequestColumns+` FROM tier_requests WHERE state = 'pending' ORDER BY id`)
}

// DecideTierRequest approves or declines a pending request, once: of two
// operators deciding at once, the second is told it is decided.
func (d *DB) DecideTierRequest(ctx context.Context, id int64, s account.RequestState, note string, now time.Time) (account.TierRequest, error) {
	what := fmt.Sprintf("decide tier request %d", id)
	if s != account.Approved && s != account.Declined {
		return account.TierRequest{}, fmt.Errorf("postgres: %s: %q is not a decision: %w", what, s, catalog.ErrInvalid)
	}
	r, err := scanTierRequest(d.pool.QueryRow(ctx, `UPDATE tier_requests SET state = $2, note = $3, decided_at = $4
		WHERE id = $1 AND state = 'pending' RETURNING `+tierRequestColumns, id, string(s), note, nullTime(now)))
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return account.TierRequest{}, fail(what, err)
	}
	var state string
	err = d.pool.QueryRow(ctx, `SELECT state FROM tier_requests WHERE id = $1`, id).Scan(&state)
	if err == nil {
		// Decided is final: a pending request found now was decided already.
		return account.TierRequest{}, fmt.Errorf("postgres: %s: already %s: %w", what, state, catalog.ErrInvalid)
	}
	return account.TierRequest{}, keyErr(what, err)
}

func (d *DB) queryTierRequests(ctx context.Context, q string, args ...any) ([]account.TierRequest, error) {
	rows, err := d.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fail("list tier requests", err)
	}
	defer rows.Close()
	var out []account.TierRequest
	for rows.Next() {
		r, err := scanTierRequest(rows)
		if err != nil {
			return nil, fail("list tier requests", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fail("list tier requests", err)
	}
	return out, nil
}

func scanTierRequest(r pgx.Row) (account.TierRequest, error) {
	var t account.TierRequest
	var tier, state string
	var decided *time.Time
	if err := r.Scan(&t.ID, &t.AccountID, &t.KeyPrefix, &tier, &t.UseCase, &t.Volume, &state, &t.Note, &t.CreatedAt, &decided); err != nil {
		return account.TierRequest{}, err
	}
	t.Tier, t.State = apikey.Tier(tier), account.RequestState(state)
	t.CreatedAt, t.DecidedAt = t.CreatedAt.UTC(), timeOf(decided)
	return t, nil
}
