// Package admin is the domain of the admin dashboard's operators: admin
// users (an email, an argon2id password hash, an optional TOTP second
// factor with recovery codes), their sessions (apart from the developer
// portal's), and the audit log of every admin action, with the Store the
// backends meet. It holds types, pure functions and interfaces, and imports
// only the standard library (and golang.org/x/crypto for argon2, rsc.io/qr
// for the second factor's QR code), the catalogue's error kinds and the key
// domain.
//
// Secrets never reach a store in the clear: passwords as argon2id hashes
// (PHC string form), session cookies and recovery codes as SHA-256 hashes.
package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// ErrCodeUsed refuses a second-factor code of a step at or before the
// last one the admin used (Store.UseTOTPStep): a code works once. It
// matches catalog.ErrInvalid.
var ErrCodeUsed = fmt.Errorf("the second-factor code was used already: %w", catalog.ErrInvalid)

// Durations of admin sessions: shorter than the portal's.
const (
	// SessionIdle ends an admin session nobody used for this long.
	SessionIdle = 30 * time.Minute
	// SessionMax ends every admin session this long after sign-in.
	SessionMax = 12 * time.Hour
)

// User is one operator who may sign in to the dashboard.
type User struct {
	ID           int64
	Email        string // normalised like account.NormalizeEmail
	PasswordHash string // argon2id, PHC form: $argon2id$v=19$m=...,t=...,p=...$salt$hash
	// TOTPSecret is the base32 secret of the second factor; empty: none
	// enrolled. (A store keeps it as given; it must be readable to check
	// codes.)
	TOTPSecret string
	// RecoveryHashes are the SHA-256 hashes of the unused recovery codes.
	RecoveryHashes []string
	Disabled       bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Session is one signed-in admin browser. Hash is the SHA-256 of the
// cookie's value.
type Session struct {
	Hash      string
	UserID    int64
	IP        string // the client IP at sign-in; the session is bound to the allow-list on every request
	CreatedAt time.Time
	LastSeen  time.Time
}

// Expired reports whether s has ended at now.
func (s Session) Expired(now time.Time) bool {
	return !now.Before(s.LastSeen.Add(SessionIdle)) || !now.Before(s.CreatedAt.Add(SessionMax))
}

// AuditEntry is one admin action: who (an admin's email, or "system" for
// automatic actions, or "cli" for the command line), what, on what, from
// which IP, when, and the reason given.
type AuditEntry struct {
	ID     int64
	At     time.Time
	Actor  string
	IP     string
	Action string // e.g. "key.suspend", "key.tier", "tier_request.approve", "user.create"
	Target string // e.g. a key prefix, "account:12", "user:3"
	Reason string
	Detail string // what changed, e.g. "free → pro"
}

// Store persists admin users, admin sessions and the audit log. Lookups of
// something missing return an error wrapping catalog.ErrNotFound; any
// other error means the store cannot answer, and the dashboard then denies.
type Store interface {
	// CreateAdminUser stores u (Email and PasswordHash required) and returns
	// it; a taken email gives an error wrapping catalog.ErrInvalid.
	CreateAdminUser(ctx context.Context, u User) (User, error)
	// AdminUserByEmail returns the user of a (normalised) email.
	AdminUserByEmail(ctx context.Context, email string) (User, error)
	// AdminUserByID returns a user.
	AdminUserByID(ctx context.Context, id int64) (User, error)
	// ListAdminUsers returns every user, oldest first.
	ListAdminUsers(ctx context.Context) ([]User, error)
	// UpdateAdminUser stores u's PasswordHash, TOTPSecret, RecoveryHashes
	// and Disabled (by ID) and returns it; disabling a user, or changing its
	// password, ends its sessions (in the same transaction).
	UpdateAdminUser(ctx context.Context, u User) (User, error)
	// UseTOTPStep records step as the last second-factor step the admin
	// used, in one statement: a step at or before the last recorded gives
	// ErrCodeUsed, so a code works once, and of two sign-ins with one code
	// at once exactly one succeeds. An unknown admin gives an error
	// wrapping catalog.ErrNotFound.
	UseTOTPStep(ctx context.Context, userID, step int64) error
	// SpendRecoveryCode removes hash from the admin's unused recovery
	// codes and returns how many are left, in one transaction: of spends
	// of one code at once exactly one succeeds. A hash that is not among
	// them (spent, or never one) or an unknown admin gives an error
	// wrapping catalog.ErrNotFound.
	SpendRecoveryCode(ctx context.Context, userID int64, hash string) (left int, err error)

	// CreateAdminSession stores a session (LastSeen = CreatedAt).
	CreateAdminSession(ctx context.Context, s Session) error
	// TouchAdminSession returns the live session whose cookie hashes to
	// hash and its user, recording now as LastSeen. Unknown, expired, or a
	// disabled user's: an error wrapping catalog.ErrNotFound (an expired
	// one is deleted).
	TouchAdminSession(ctx context.Context, hash string, now time.Time) (Session, User, error)
	// EndAdminSession deletes one session.
	EndAdminSession(ctx context.Context, hash string) error

	// AppendAudit stores e (At set by the caller; zero: the store's clock)
	// and returns it with its ID; an entry Check refuses gives its error.
	// There is no way to change or delete an entry.
	AppendAudit(ctx context.Context, e AuditEntry) (AuditEntry, error)
	// Audit returns entries newest first: those before beforeID (0: from
	// the newest), at most limit, optionally only those whose Target is
	// target.
	Audit(ctx context.Context, beforeID int64, limit int, target string) ([]AuditEntry, error)
}
