package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ account.Store = (*DB)(nil)

// Every write below runs in a transaction that takes the write lock at
// BEGIN (_txlock=immediate), so two writers never interleave: of two uses
// of one sign-in link, the second finds it used.

const accountColumns = `id, email, created_at, deleted_at, disabled, held_since, duplicate_of`

// CreateSignInLink stores a sign-in link for email (normalised here; an
// address NormalizeEmail refuses gives its error). Links expired by the
// store's clock are dropped on the way, so the table stays small.
func (d *DB) CreateSignInLink(ctx context.Context, hash, email string, expires time.Time) error {
	email, err := account.NormalizeEmail(email)
	if err != nil {
		return err
	}
	if hash == "" || expires.IsZero() {
		return fmt.Errorf("create sign-in link: hash and expiry are required: %w", catalog.ErrInvalid)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create sign-in link: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM sign_in_links WHERE expires_at <= ?`, d.now().UnixMilli()); err != nil {
		return fmt.Errorf("create sign-in link: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sign_in_links (hash, email, expires_at) VALUES (?, ?, ?)`,
		hash, email, millis(stampOrZero(expires))); err != nil {
		return fmt.Errorf("create sign-in link: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create sign-in link: %w", err)
	}
	return nil
}

// UseSignInLink consumes a link once and returns the live account of its
// address as account.FoldEmail spells it, made now if there is none, in
// one transaction.
func (d *DB) UseSignInLink(ctx context.Context, hash string, now time.Time) (account.Account, error) {
	now = stampOrZero(now)
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return account.Account{}, fmt.Errorf("use sign-in link: %w", err)
	}
	defer tx.Rollback()
	var email string
	err = tx.QueryRowContext(ctx, `UPDATE sign_in_links SET used_at = ? WHERE hash = ? AND used_at = 0 AND expires_at > ? RETURNING email`,
		now.UnixMilli(), hash, now.UnixMilli()).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return account.Account{}, account.ErrLinkInvalid
	}
	if err != nil {
		return account.Account{}, fmt.Errorf("use sign-in link: %w", err)
	}
	key, err := account.FoldEmail(email)
	if err != nil {
		return account.Account{}, fmt.Errorf("use sign-in link: %w", err)
	}
	a, err := scanAccount(tx.QueryRowContext(ctx, liveAccountOf, key, email))
	if errors.Is(err, catalog.ErrNotFound) {
		a, err = scanAccount(tx.QueryRowContext(ctx, `INSERT INTO accounts (email, email_key, created_at) VALUES (?, ?, ?) RETURNING `+accountColumns,
			email, key, now.UnixMilli()))
	}
	if err != nil {
		return account.Account{}, fmt.Errorf("use sign-in link: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return account.Account{}, fmt.Errorf("use sign-in link: %w", err)
	}
	return a, nil
}

// liveAccountOf selects the live account of a folded address (its first
// parameter): of duplicates, the one of the address as typed (the second),
// else the oldest.
const liveAccountOf = `SELECT ` + accountColumns + ` FROM accounts WHERE email_key = ? AND deleted_at = 0
	ORDER BY email = ? DESC, id LIMIT 1`

// SignInLinkEmail returns the address of a link that works at now,
// using nothing.
func (d *DB) SignInLinkEmail(ctx context.Context, hash string, now time.Time) (string, error) {
	var email string
	err := d.db.QueryRowContext(ctx, `SELECT email FROM sign_in_links WHERE hash = ? AND used_at = 0 AND expires_at > ?`,
		hash, stampOrZero(now).UnixMilli()).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", account.ErrLinkInvalid
	}
	if err != nil {
		return "", fmt.Errorf("read sign-in link: %w", err)
	}
	return email, nil
}

// AccountByID returns an account, deleted or not.
func (d *DB) AccountByID(ctx context.Context, id int64) (account.Account, error) {
	return queryOne(ctx, d, fmt.Sprintf("account %d", id), scanAccount, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id)
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
	return queryOne(ctx, d, "account of "+email, scanAccount, liveAccountOf, key, email)
}

// DeleteAccount, in one transaction, revokes the account's keys and
// erases their email, erases the account's email (keeping the first
// deletion time), ends its sessions, drops its unused sign-in links and
// its tier requests (their free text is the developer's). Usage counts,
// kept by key prefix, stay. Deleting a deleted account again changes
// nothing more.
func (d *DB) DeleteAccount(ctx context.Context, id int64, now time.Time) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete account %d: %w", id, err)
	}
	defer tx.Rollback()
	a, err := scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, id))
	if err != nil {
		return fmt.Errorf("delete account %d: %w", id, err)
	}
	keyStamp := d.now().UTC().Truncate(time.Millisecond).UnixMilli()
	type step struct {
		q    string
		args []any
	}
	steps := []step{
		// updated_at only moves forward (see updateKey); the change
		// reaches the replicas' caches at their next sync.
		{`UPDATE api_keys SET state = 'revoked', email = '', updated_at = MAX(updated_at, ?) WHERE account_id = ?`, []any{keyStamp, id}},
		{`UPDATE accounts SET email = '', email_key = '', deleted_at = ? WHERE id = ? AND deleted_at = 0`, []any{millis(stampOrZero(now)), id}},
		{accountSessions.endAllOf(), []any{id}},
		{`DELETE FROM tier_requests WHERE account_id = ?`, []any{id}},
	}
	if !a.Deleted() {
		steps = append(steps, step{`DELETE FROM sign_in_links WHERE email = ? AND used_at = 0`, []any{a.Email}})
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("delete account %d: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete account %d: %w", id, err)
	}
	return nil
}

func scanAccount(r rowScanner) (account.Account, error) {
	var a account.Account
	var created, deleted, held int64
	err := r.Scan(&a.ID, &a.Email, &created, &deleted, &a.Disabled, &held, &a.DuplicateOf)
	if errors.Is(err, sql.ErrNoRows) {
		return account.Account{}, catalog.ErrNotFound
	}
	if err != nil {
		return account.Account{}, err
	}
	a.CreatedAt, a.DeletedAt, a.HeldSince = fromMillis(created), fromMillis(deleted), fromMillis(held)
	return a, nil
}

// accountSessions are the portal's sessions: of live, enabled accounts.
var accountSessions = sessionTable{
	what: "session", table: "sessions", owner: "account_id",
	allowed: `accounts WHERE id = ? AND deleted_at = 0 AND disabled = 0`, allowedName: "live, enabled account",
	idle: account.SessionIdle, max: account.SessionMax, gone: account.ErrNoSession,
}

// CreateSession stores a session of a live, enabled account (otherwise an
// error wrapping catalog.ErrNotFound). Sessions expired at its CreatedAt are
// dropped on the way, so the table stays small.
func (d *DB) CreateSession(ctx context.Context, s account.Session) error {
	return d.createSession(ctx, accountSessions, sessionRow{hash: s.Hash, owner: s.AccountID, created: s.CreatedAt})
}

// TouchSession returns a live session and its account and records now as
// the session's LastSeen; an expired one (or one of a deleted or disabled
// account) is deleted and gives account.ErrNoSession.
func (d *DB) TouchSession(ctx context.Context, hash string, now time.Time) (account.Session, account.Account, error) {
	var a account.Account
	row, err := d.touchSession(ctx, accountSessions, hash, now, func(tx *sql.Tx, s sessionRow, now time.Time) (bool, error) {
		var err error
		a, err = scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = ?`, s.owner))
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
	if _, err := d.db.ExecContext(ctx, accountSessions.endAllOf(), accountID); err != nil {
		return fmt.Errorf("end sessions of account %d: %w", accountID, err)
	}
	return nil
}

// AccountKeys returns an account's keys, oldest first; account 0 (the
// operator's keys) has none.
func (d *DB) AccountKeys(ctx context.Context, accountID int64) ([]apikey.Key, error) {
	if accountID == 0 {
		return nil, nil
	}
	return d.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = ? ORDER BY id`, accountID)
}

const tierRequestColumns = `id, account_id, key_prefix, tier, use_case, volume, state, note, created_at, decided_at`

// CreateTierRequest stores a pending request of a live account (otherwise
// an error wrapping catalog.ErrNotFound); CreatedAt defaults to the
// store's clock.
func (d *DB) CreateTierRequest(ctx context.Context, r account.TierRequest) (account.TierRequest, error) {
	if err := r.Check(); err != nil {
		return account.TierRequest{}, err
	}
	stored, err := scanTierRequest(d.db.QueryRowContext(ctx, `INSERT INTO tier_requests (account_id, key_prefix, tier, use_case, volume, state, created_at)
		SELECT id, ?, ?, ?, ?, 'pending', ? FROM accounts WHERE id = ? AND deleted_at = 0 RETURNING `+tierRequestColumns,
		r.KeyPrefix, string(r.Tier), r.UseCase, r.Volume, d.stampOrNow(r.CreatedAt).UnixMilli(), r.AccountID))
	if errors.Is(err, catalog.ErrNotFound) {
		return account.TierRequest{}, fmt.Errorf("create tier request: no live account %d: %w", r.AccountID, err)
	}
	if err != nil {
		return account.TierRequest{}, fmt.Errorf("create tier request: %w", err)
	}
	return stored, nil
}

// TierRequests returns an account's requests, newest first.
func (d *DB) TierRequests(ctx context.Context, accountID int64) ([]account.TierRequest, error) {
	return d.queryTierRequests(ctx, `SELECT `+tierRequestColumns+` FROM tier_requests WHERE account_id = ? ORDER BY id DESC`, accountID)
}

// PendingTierRequests returns every pending request, oldest first.
func (d *DB) PendingTierRequests(ctx context.Context) ([]account.TierRequest, error) {
	return d.queryTierRequests(ctx, `SELECT `+tierRequestColumns+` FROM tier_requests WHERE state = 'pending' ORDER BY id`)
}

// DecideTierRequest approves or declines a pending request, once.
func (d *DB) DecideTierRequest(ctx context.Context, id int64, s account.RequestState, note string, now time.Time) (account.TierRequest, error) {
	if s != account.Approved && s != account.Declined {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: %q is not a decision: %w", id, s, catalog.ErrInvalid)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: %w", id, err)
	}
	defer tx.Rollback()
	r, err := scanTierRequest(tx.QueryRowContext(ctx, `SELECT `+tierRequestColumns+` FROM tier_requests WHERE id = ?`, id))
	if err != nil {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: %w", id, err)
	}
	if r.State != account.Pending {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: already %s: %w", id, r.State, catalog.ErrInvalid)
	}
	r, err = scanTierRequest(tx.QueryRowContext(ctx, `UPDATE tier_requests SET state = ?, note = ?, decided_at = ? WHERE id = ? RETURNING `+tierRequestColumns,
		string(s), note, millis(stampOrZero(now)), id))
	if err != nil {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return account.TierRequest{}, fmt.Errorf("decide tier request %d: %w", id, err)
	}
	return r, nil
}

func (d *DB) queryTierRequests(ctx context.Context, q string, args ...any) ([]account.TierRequest, error) {
	return queryAll(ctx, d, "list tier requests", scanTierRequest, q, args...)
}

func scanTierRequest(r rowScanner) (account.TierRequest, error) {
	var t account.TierRequest
	var tier, state string
	var created, decided int64
	err := r.Scan(&t.ID, &t.AccountID, &t.KeyPrefix, &tier, &t.UseCase, &t.Volume, &state, &t.Note, &created, &decided)
	if errors.Is(err, sql.ErrNoRows) {
		return account.TierRequest{}, catalog.ErrNotFound
	}
	if err != nil {
		return account.TierRequest{}, err
	}
	t.Tier, t.State = apikey.Tier(tier), account.RequestState(state)
	t.CreatedAt, t.DecidedAt = fromMillis(created), fromMillis(decided)
	return t, nil
}
