package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ admin.Store = (*DB)(nil)

const adminUserColumns = `id, email, password_hash, totp_secret, recovery_hashes, disabled, created_at, updated_at`

// CreateAdminUser stores a new admin (email normalised here); a taken
// email gives an error wrapping catalog.ErrInvalid.
func (d *DB) CreateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	email, err := account.NormalizeEmail(u.Email)
	if err != nil {
		return admin.User{}, err
	}
	if u.PasswordHash == "" {
		return admin.User{}, fmt.Errorf("create admin %s: a password hash is required: %w", email, catalog.ErrInvalid)
	}
	recovery, err := json.Marshal(nonNil(u.RecoveryHashes))
	if err != nil {
		return admin.User{}, fmt.Errorf("create admin %s: %w", email, err)
	}
	now := d.now().UTC().Truncate(time.Millisecond).UnixMilli()
	stored, err := scanAdminUser(d.db.QueryRowContext(ctx, `INSERT INTO admin_users (email, password_hash, totp_secret, recovery_hashes, disabled, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING `+adminUserColumns,
		email, u.PasswordHash, u.TOTPSecret, string(recovery), u.Disabled, now, now))
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return admin.User{}, fmt.Errorf("create admin %s: the email has an admin already: %w", email, catalog.ErrInvalid)
		}
		return admin.User{}, fmt.Errorf("create admin %s: %w", email, err)
	}
	return stored, nil
}

// AdminUserByEmail returns the admin of email (normalised here).
func (d *DB) AdminUserByEmail(ctx context.Context, email string) (admin.User, error) {
	email, err := account.NormalizeEmail(email)
	if err != nil {
		return admin.User{}, err
	}
	return queryOne(ctx, d, "admin "+email, scanAdminUser, `SELECT `+adminUserColumns+` FROM admin_users WHERE email = ?`, email)
}

// AdminUserByID returns an admin.
func (d *DB) AdminUserByID(ctx context.Context, id int64) (admin.User, error) {
	return queryOne(ctx, d, fmt.Sprintf("admin %d", id), scanAdminUser, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = ?`, id)
}

// ListAdminUsers returns every admin, oldest first.
func (d *DB) ListAdminUsers(ctx context.Context) ([]admin.User, error) {
	return queryAll(ctx, d, "list admins", scanAdminUser, `SELECT `+adminUserColumns+` FROM admin_users ORDER BY id`)
}

// UpdateAdminUser stores an admin's password hash, second factor,
// recovery codes and Disabled, in one transaction that also ends the
// admin's sessions when it is disabled or its password changes.
func (d *DB) UpdateAdminUser(ctx context.Context, u admin.User) (admin.User, error) {
	if u.PasswordHash == "" {
		return admin.User{}, fmt.Errorf("update admin %d: a password hash is required: %w", u.ID, catalog.ErrInvalid)
	}
	recovery, err := json.Marshal(nonNil(u.RecoveryHashes))
	if err != nil {
		return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
	}
	defer tx.Rollback()
	before, err := scanAdminUser(tx.QueryRowContext(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = ?`, u.ID))
	if err != nil {
		return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
	}
	now := max(d.now().UTC().Truncate(time.Millisecond).UnixMilli(), before.UpdatedAt.UnixMilli())
	stored, err := scanAdminUser(tx.QueryRowContext(ctx, `UPDATE admin_users SET password_hash = ?, totp_secret = ?, recovery_hashes = ?, disabled = ?, updated_at = ?
		WHERE id = ? RETURNING `+adminUserColumns, u.PasswordHash, u.TOTPSecret, string(recovery), u.Disabled, now, u.ID))
	if err != nil {
		return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
	}
	if u.Disabled || u.PasswordHash != before.PasswordHash {
		if _, err := tx.ExecContext(ctx, adminSessions.endAllOf(), u.ID); err != nil {
			return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return admin.User{}, fmt.Errorf("update admin %d: %w", u.ID, err)
	}
	return stored, nil
}

func scanAdminUser(r rowScanner) (admin.User, error) {
	var u admin.User
	var recovery string
	var created, updated int64
	err := r.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.TOTPSecret, &recovery, &u.Disabled, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return admin.User{}, catalog.ErrNotFound
	}
	if err != nil {
		return admin.User{}, err
	}
	if err := json.Unmarshal([]byte(recovery), &u.RecoveryHashes); err != nil {
		return admin.User{}, fmt.Errorf("admin %d: recovery codes: %w", u.ID, err)
	}
	if len(u.RecoveryHashes) == 0 {
		u.RecoveryHashes = nil
	}
	u.CreatedAt, u.UpdatedAt = fromMillis(created), fromMillis(updated)
	return u, nil
}

// adminSessions are the dashboard's sessions: of enabled admins, each
// with the client IP it signed in from.
var adminSessions = sessionTable{
	what: "admin session", table: "admin_sessions", owner: "user_id", ip: true,
	allowed: `admin_users WHERE id = ? AND disabled = 0`, allowedName: "enabled admin",
	idle: admin.SessionIdle, max: admin.SessionMax, gone: noAdminSession,
}

// noAdminSession reports a session that is unknown, ended, expired or a
// disabled admin's.
var noAdminSession = fmt.Errorf("no such admin session: %w", catalog.ErrNotFound)

// CreateAdminSession stores a session of an enabled admin (otherwise an
// error wrapping catalog.ErrNotFound). Sessions expired at its CreatedAt
// are dropped on the way, so the table stays small.
func (d *DB) CreateAdminSession(ctx context.Context, s admin.Session) error {
	return d.createSession(ctx, adminSessions, sessionRow{hash: s.Hash, owner: s.UserID, ip: s.IP, created: s.CreatedAt})
}

// TouchAdminSession returns a live session and its admin and records now
// as its LastSeen; an expired one (or a disabled admin's) is deleted and
// gives an error wrapping catalog.ErrNotFound.
func (d *DB) TouchAdminSession(ctx context.Context, hash string, now time.Time) (admin.Session, admin.User, error) {
	var u admin.User
	row, err := d.touchSession(ctx, adminSessions, hash, now, func(tx *sql.Tx, s sessionRow, now time.Time) (bool, error) {
		var err error
		u, err = scanAdminUser(tx.QueryRowContext(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = ?`, s.owner))
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
	stored, err := scanAudit(d.db.QueryRowContext(ctx, `INSERT INTO audit_log (at, actor, ip, action, target, reason, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING `+auditColumns,
		d.stampOrNow(e.At).UnixMilli(), e.Actor, e.IP, e.Action, e.Target, e.Reason, e.Detail))
	if err != nil {
		return admin.AuditEntry{}, fmt.Errorf("append audit %s: %w", e.Action, err)
	}
	return stored, nil
}

// Audit returns entries newest first: before beforeID (0: from the
// newest), at most limit, only target's when target is set.
func (d *DB) Audit(ctx context.Context, beforeID int64, limit int, target string) ([]admin.AuditEntry, error) {
	if limit < 1 {
		return nil, fmt.Errorf("audit: limit %d: %w", limit, catalog.ErrInvalid)
	}
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	q := `SELECT ` + auditColumns + ` FROM audit_log WHERE id < ?`
	args := []any{beforeID}
	if target != "" {
		q += ` AND target = ?`
		args = append(args, target)
	}
	return queryAll(ctx, d, "audit", scanAudit, q+` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
}

func scanAudit(r rowScanner) (admin.AuditEntry, error) {
	var e admin.AuditEntry
	var at int64
	if err := r.Scan(&e.ID, &at, &e.Actor, &e.IP, &e.Action, &e.Target, &e.Reason, &e.Detail); err != nil {
		return admin.AuditEntry{}, err
	}
	e.At = fromMillis(at)
	return e, nil
}

// UseTOTPStep records step as the admin's last second-factor step, in one
// statement that refuses a step at or before the last (admin.ErrCodeUsed).
func (d *DB) UseTOTPStep(ctx context.Context, userID, step int64) error {
	res, err := d.db.ExecContext(ctx, `UPDATE admin_users SET totp_step = ? WHERE id = ? AND totp_step < ?`, step, userID, step)
	if err != nil {
		return fmt.Errorf("use a second-factor step of admin %d: %w", userID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	if _, err := d.AdminUserByID(ctx, userID); err != nil {
		return fmt.Errorf("use a second-factor step: %w", err)
	}
	return fmt.Errorf("admin %d, step %d: %w", userID, step, admin.ErrCodeUsed)
}

// SpendRecoveryCode removes hash from the admin's unused recovery codes,
// in one transaction (which holds the write lock from its start), and
// returns how many are left.
func (d *DB) SpendRecoveryCode(ctx context.Context, userID int64, hash string) (int, error) {
	left := 0
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		u, err := scanAdminUser(tx.QueryRowContext(ctx, `SELECT `+adminUserColumns+` FROM admin_users WHERE id = ?`, userID))
		if err != nil {
			return err
		}
		i := slices.Index(u.RecoveryHashes, hash)
		if i < 0 || hash == "" {
			return fmt.Errorf("no such unused recovery code: %w", catalog.ErrNotFound)
		}
		rest, err := json.Marshal(nonNil(slices.Delete(u.RecoveryHashes, i, i+1)))
		if err != nil {
			return err
		}
		left = len(u.RecoveryHashes) - 1
		_, err = tx.ExecContext(ctx, `UPDATE admin_users SET recovery_hashes = ? WHERE id = ?`, string(rest), userID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("spend a recovery code of admin %d: %w", userID, err)
	}
	return left, nil
}
