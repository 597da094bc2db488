package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ admin.Store = (*DB)(nil)

// The dashboard's rows are shared by every replica: an admin signed in
// through one is signed in on all, and a disabled admin is out on all.

const adminUserColumns = `id, email, password_hash, totp_secret, recovery_hashes, disabled, created_at, updated_at`

// CreateAdminUser stores a new admin (email normalised here); a taken
// email gives an error wrapping catalog.ErrInvalid.
func (d *DB) CreateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	email, err := account.NormalizeEmail(u.Email)
	if err != nil {
		return admin.User{}, err
	}
	if u.PasswordHash == "" {
		return admin.User{}, fmt.Errorf("postgres: create admin %s: a password hash is required: %w", email, catalog.ErrInvalid)
	}
	now := d.stamp()
	stored, err := scanAdminUser(d.pool.QueryRow(ctx, `INSERT INTO admin_users (email, password_hash, totp_secret, recovery_hashes, disabled, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING `+adminUserColumns,
		email, u.PasswordHash, u.TOTPSecret, nonNil(u.RecoveryHashes), u.Disabled, now))
	if isUniqueViolation(err) {
		return admin.User{}, fmt.Errorf("postgres: create admin %s: the email has an admin already: %w", email, catalog.ErrInvalid)
	}
	if err != nil {
		return admin.User{}, fail("create admin "+email, err)
	}
	return stored, nil
}

// AdminUserByEmail returns the admin of email (normalised here).
func (d *DB) AdminUserByEmail(ctx context.Context, email string) (admin.User, error) {
	email, err := account.NormalizeEmail(email)
	if err != nil {
		return admin.User{}, err
	}
	u, err := scanAdminUser(d.pool.QueryRow(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE email = $1`, email))
	if err != nil {
		return admin.User{}, keyErr("admin "+email, err)
	}
	return u, nil
}

// AdminUserByID returns an admin.
func (d *DB) AdminUserByID(ctx context.Context, id int64) (admin.User, error) {
	u, err := scanAdminUser(d.pool.QueryRow(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = $1`, id))
	if err != nil {
		return admin.User{}, keyErr(fmt.Sprintf("admin %d", id), err)
	}
	return u, nil
}

// ListAdminUsers returns every admin, oldest first.
func (d *DB) ListAdminUsers(ctx context.Context) ([]admin.User, error) {
	rows, err := d.pool.Query(ctx, `SELECT `+adminUserColumns+` FROM admin_users ORDER BY id`)
	if err != nil {
		return nil, fail("list admins", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (admin.User, error) { return scanAdminUser(r) })
	if err != nil {
		return nil, fail("list admins", err)
	}
	return out, nil
}

// UpdateAdminUser stores an admin's password hash, second factor,
// recovery codes and Disabled, in one transaction that also ends the
// admin's sessions when it is disabled or its password changes.
func (d *DB) UpdateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	what := fmt.Sprintf("update admin %d", u.ID)
	if u.PasswordHash == "" {
		return admin.User{}, fmt.Errorf("postgres: %s: a password hash is required: %w", what, catalog.ErrInvalid)
	}
	var stored admin.User
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		var before string
		if err := tx.QueryRow(ctx, `SELECT password_hash FROM admin_users WHERE id = $1 FOR UPDATE`, u.ID).Scan(&before); err != nil {
			return err
		}
		var err error
		stored, err = scanAdminUser(tx.QueryRow(ctx, `UPDATE admin_users SET password_hash = $2, totp_secret = $3, recovery_hashes = $4,
			disabled = $5, updated_at = GREATEST(updated_at, $6) WHERE id = $1 RETURNING `+adminUserColumns,
			u.ID, u.PasswordHash, u.TOTPSecret, nonNil(u.RecoveryHashes), u.Disabled, d.stamp()))
		if err != nil {
			return err
		}
		if u.Disabled || u.PasswordHash != before {
			_, err = tx.Exec(ctx, adminSessions.endAllOf(), u.ID)
		}
		return err
	})
	if err != nil {
		return admin.User{}, txErr(what, err)
	}
	return stored, nil
}

func scanAdminUser(r pgx.Row) (admin.User, error) {
	var u admin.User
	if err := r.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.TOTPSecret, &u.RecoveryHashes, &u.Disabled, &u.CreatedAt, &u.UpdatedAt); err != nil {
		return admin.User{}, err
	}
	if len(u.RecoveryHashes) == 0 {
		u.RecoveryHashes = nil
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return u, nil
}

// adminSessions are the dashboard's sessions: of enabled admins, each
// with the client IP it signed in from.
var adminSessions = sessionTable{
	what: "admin session", table: "admin_sessions", owner: "user_id", ip: true,
	allowed: `admin_users WHERE id = $3 AND NOT disabled`, allowedName: "enabled admin",
	idle: admin.SessionIdle, max: admin.SessionMax, gone: noAdminSession,
}

// noAdminSession reports a session that is unknown, ended, expired or a
// disabled admin's.
var noAdminSession = fmt.Errorf("postgres: no such admin session: %w", catalog.ErrNotFound)

// CreateAdminSession stores a session of an enabled admin (otherwise an
// error wrapping catalog.ErrNotFound). Sessions expired at its CreatedAt
// are dropped first, so the table stays small.
func (d *DB) CreateAdminSession(ctx context.Context, s admin.Session) error {
	return d.createSession(ctx, adminSessions, sessionRow{hash: s.Hash, owner: s.UserID, ip: s.IP, created: s.CreatedAt})
}

// TouchAdminSession returns a live session and its admin and records now
// as its LastSeen; an expired one (or a disabled admin's) is deleted and
// gives an error wrapping catalog.ErrNotFound.
func (d *DB) TouchAdminSession(ctx context.Context, hash string, now time.Time) (admin.Session, admin.User, error) {
	var u admin.User
	row, err := d.touchSession(ctx, adminSessions, hash, now, func(tx pgx.Tx, s sessionRow, now time.Time) (bool, error) {
		var err error
		u, err = scanAdminUser(tx.QueryRow(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = $1`, s.owner))
		return err == nil && !adminSession(s).Expired(now) && !u.Disabled, err
	})
	if err != nil {
		return admin.Session{}, admin.User{}, err
	}
	return adminSession(row), u, nil
}

// adminSession is a row of the dashboard's sessions.
func adminSession(s sessionRow) admin.Session {
	return admin.Session{Hash: s.hash, UserID: s.owner, IP: s.ip, CreatedAt: s.created, LastSeen: s.lastSeen}
}

// EndAdminSession deletes one session; ending one that is gone is no error.
func (d *DB) EndAdminSession(ctx context.Context, hash string) error {
	return d.endSession(ctx, adminSessions, hash)
}

const auditColumns = `id, at, actor, ip, action, target, reason, detail`

// AppendAudit appends an entry (At defaults to the store's clock) and
// returns it with its ID. Nothing here, or anywhere, changes an entry:
// the table's triggers refuse it.
func (d *DB) AppendAudit(ctx context.Context, e admin.AuditEntry) (admin.AuditEntry, error) {
	if err := e.Check(); err != nil {
		return admin.AuditEntry{}, err
	}
	stored, err := scanAudit(d.pool.QueryRow(ctx, `INSERT INTO audit_log (at, actor, ip, action, target, reason, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+auditColumns,
		d.stampOrNow(e.At), e.Actor, e.IP, e.Action, e.Target, e.Reason, e.Detail))
	if err != nil {
		return admin.AuditEntry{}, fail("append audit "+e.Action, err)
	}
	return stored, nil
}

// Audit returns entries newest first: before beforeID (0: from the
// newest), at most limit, only target's when target is set.
func (d *DB) Audit(ctx context.Context, beforeID int64, limit int, target string) ([]admin.AuditEntry, error) {
	if limit < 1 {
		return nil, fmt.Errorf("postgres: audit: limit %d: %w", limit, catalog.ErrInvalid)
	}
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	rows, err := d.pool.Query(ctx, `SELECT `+auditColumns+` FROM audit_log
		WHERE id < $1 AND ($2 = '' OR target = $2) ORDER BY id DESC LIMIT $3`, beforeID, target, limit)
	if err != nil {
		return nil, fail("audit", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (admin.AuditEntry, error) { return scanAudit(r) })
	if err != nil {
		return nil, fail("audit", err)
	}
	return out, nil
}

func scanAudit(r pgx.Row) (admin.AuditEntry, error) {
	var e admin.AuditEntry
	if err := r.Scan(&e.ID, &e.At, &e.Actor, &e.IP, &e.Action, &e.Target, &e.Reason, &e.Detail); err != nil {
		return admin.AuditEntry{}, err
	}
	e.At = e.At.UTC()
	return e, nil
}

// UseTOTPStep records step as the admin's last second-factor step, in one
// statement that refuses a step at or before the last (admin.ErrCodeUsed):
// of two at once, the second waits for the first's row lock, then finds
// the step taken.
func (d *DB) UseTOTPStep(ctx context.Context, userID, step int64) error {
	tag, err := d.pool.Exec(ctx, `UPDATE admin_users SET totp_step = $2 WHERE id = $1 AND totp_step < $2`, userID, step)
	if err != nil {
		return fail(fmt.Sprintf("use a second-factor step of admin %d", userID), err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	if _, err := d.AdminUserByID(ctx, userID); err != nil {
		return err
	}
	return fmt.Errorf("postgres: admin %d, step %d: %w", userID, step, admin.ErrCodeUsed)
}

// SpendRecoveryCode removes hash from the admin's unused recovery codes in
// one statement, and returns how many are left: of two spends at once, the
// second waits for the first's row lock, then finds the code gone.
func (d *DB) SpendRecoveryCode(ctx context.Context, userID int64, hash string) (int, error) {
	var left int
	err := d.pool.QueryRow(ctx, `UPDATE admin_users SET recovery_hashes = array_remove(recovery_hashes, $2)
		WHERE id = $1 AND $2 = ANY(recovery_hashes) RETURNING cardinality(recovery_hashes)`, userID, hash).Scan(&left)
	if err != nil {
		return 0, keyErr(fmt.Sprintf("spend a recovery code of admin %d", userID), err)
	}
	return left, nil
}
