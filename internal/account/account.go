// Package account is the domain of the developer portal's accounts: an
// account (one email address), its single-use sign-in links, its browser
// sessions and its requests for a higher tier, and the Store the backends
// meet. It holds types, pure functions and interfaces, and imports only
// the standard library, the catalogue's error kinds and the key domain.
//
// Secrets never reach a store: a sign-in link's token and a session's
// cookie value are 256 random bits handed to the visitor once; the store
// keeps only their SHA-256 (Hash). An account's keys are ordinary API keys
// (apikey.Key) whose AccountID is the account's.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Durations of the portal's secrets.
const (
	// LinkTTL is how long a sign-in link works (once).
	LinkTTL = 15 * time.Minute
	// SessionIdle ends a session nobody used for this long.
	SessionIdle = 7 * 24 * time.Hour
	// SessionMax ends every session this long after sign-in.
	SessionMax = 30 * 24 * time.Hour
)

// ErrLinkInvalid reports a sign-in token that is unknown, already used or
// expired. The three are one error on purpose: the visitor learns only
// that the link does not work. It matches catalog.ErrNotFound.
var ErrLinkInvalid = fmt.Errorf("the sign-in link is unknown, used or expired: %w", catalog.ErrNotFound)

// ErrNoSession reports a session that is unknown, ended or expired. It
// matches catalog.ErrNotFound.
var ErrNoSession = fmt.Errorf("no such session: %w", catalog.ErrNotFound)

// Account is one developer: an email address and the keys that name it.
// A deleted account keeps its ID (its keys' usage stays, anonymous) and
// loses its email.
type Account struct {
	ID        int64
	Email     string // normalised (NormalizeEmail); "" once deleted
	CreatedAt time.Time
	DeletedAt time.Time // zero while the account lives
	// Disabled is set by an operator (the admin dashboard): the account's
	// keys are suspended, and it may neither sign in nor make keys.
	Disabled bool
}

// Deleted reports whether the account was deleted.
func (a Account) Deleted() bool { return !a.DeletedAt.IsZero() }

// Session is one signed-in browser. Hash is the SHA-256 of the cookie's value.
type Session struct {
	Hash      string
	AccountID int64
	CreatedAt time.Time
	LastSeen  time.Time
}

// Expired reports whether s has ended at now: idle for SessionIdle, or
// older than SessionMax.
func (s Session) Expired(now time.Time) bool {
	return !now.Before(s.LastSeen.Add(SessionIdle)) || !now.Before(s.CreatedAt.Add(SessionMax))
}

// RequestState is the state of a tier request.
type RequestState string

// Tier request states: pending until an operator approves or declines.
const (
	Pending  RequestState = "pending"
	Approved RequestState = "approved"
	Declined RequestState = "declined"
)

// Valid reports whether s is one of the three states.
func (s RequestState) Valid() bool { return s == Pending || s == Approved || s == Declined }

// TierRequest is a developer's request for a higher tier for one key,
// queued for the operator (the admin dashboard decides it).
type TierRequest struct {
	ID        int64
	AccountID int64
	KeyPrefix string
	Tier      apikey.Tier // the tier asked for
	UseCase   string      // at most MaxUseCase characters
	Volume    string      // expected volume, free text, at most MaxVolume characters
	State     RequestState
	Note      string // the operator's answer, shown to the developer
	CreatedAt time.Time
	DecidedAt time.Time // zero while pending
}

// Bounds of a tier request's free text.
const (
	MaxUseCase = 2000
	MaxVolume  = 200
)

// Check refuses a request without key, tier or use case, or with text
// over its bound, with an error wrapping catalog.ErrInvalid.
func (r TierRequest) Check() error {
	switch {
	case r.KeyPrefix == "" || r.Tier == "" || strings.TrimSpace(r.UseCase) == "":
		return fmt.Errorf("tier request: key, tier and use case are required: %w", catalog.ErrInvalid)
	case len([]rune(r.UseCase)) > MaxUseCase || len([]rune(r.Volume)) > MaxVolume:
		return fmt.Errorf("tier request: use case at most %d and volume at most %d characters: %w", MaxUseCase, MaxVolume, catalog.ErrInvalid)
	}
	return nil
}

// Store persists accounts, sign-in links, sessions and tier requests.
// Lookups of something missing return an error wrapping
// catalog.ErrNotFound; any other error means the store cannot answer, and
// the portal then fails closed (nobody is signed in).
type Store interface {
	// CreateSignInLink stores the hash of a sign-in token for email
	// (normalised by the store: an address NormalizeEmail refuses gives
	// its error), working until expires.
	CreateSignInLink(ctx context.Context, hash, email string, expires time.Time) error
	// UseSignInLink consumes the link whose token hashes to hash, once: an
	// unknown, used or expired (at now) link gives ErrLinkInvalid. It
	// returns the account of the link's email, created on first use, in
	// the same transaction that marks the link used. A disabled account is
	// returned as it is (Disabled set): the caller refuses it a session.
	UseSignInLink(ctx context.Context, hash string, now time.Time) (Account, error)
	// AccountByID returns an account, deleted or not.
	AccountByID(ctx context.Context, id int64) (Account, error)
	// AccountByEmail returns the live account of an email (normalised by
	// the store).
	AccountByEmail(ctx context.Context, email string) (Account, error)
	// ListAccounts returns every account, oldest first.
	ListAccounts(ctx context.Context) ([]Account, error)
	// DeleteAccount, in one transaction, revokes the account's keys and
	// erases their email, erases the account's email, ends its sessions
	// and drops its unused sign-in links and its tier requests (their free
	// text is the developer's). Usage counts are kept. Deleting a deleted
	// account again changes nothing (DeletedAt stays the first).
	DeleteAccount(ctx context.Context, id int64, now time.Time) error

	// SetAccountDisabled disables (suspending every active key of the
	// account and ending its sessions) or enables (resuming the keys it
	// suspended, not those an operator suspended or changed since) an
	// account, in one transaction, and returns it. Disabling again
	// suspends any key made active meanwhile. An unknown account gives an
	// error wrapping catalog.ErrNotFound.
	SetAccountDisabled(ctx context.Context, id int64, disabled bool) (Account, error)

	// CreateSession stores a session (Hash, AccountID, CreatedAt; LastSeen
	// is set to CreatedAt). A session of an unknown, deleted or disabled
	// account is refused with an error wrapping catalog.ErrNotFound.
	CreateSession(ctx context.Context, s Session) error
	// TouchSession returns the live session whose cookie hashes to hash and
	// its account, and records now as its LastSeen. An unknown or expired
	// session (Session.Expired at now), or one of a deleted or disabled
	// account, gives ErrNoSession; an expired one is deleted.
	TouchSession(ctx context.Context, hash string, now time.Time) (Session, Account, error)
	// EndSession deletes one session (signing out this browser).
	EndSession(ctx context.Context, hash string) error
	// EndSessions deletes every session of an account (sign out everywhere).
	EndSessions(ctx context.Context, accountID int64) error

	// AccountKeys returns the keys whose AccountID is accountID, oldest first.
	AccountKeys(ctx context.Context, accountID int64) ([]apikey.Key, error)

	// CreateTierRequest stores r (Check applied; State pending, no note,
	// CreatedAt the store's clock when zero) and returns it. A request of
	// an unknown or deleted account gives an error wrapping
	// catalog.ErrNotFound.
	CreateTierRequest(ctx context.Context, r TierRequest) (TierRequest, error)
	// TierRequests returns an account's requests, newest first.
	TierRequests(ctx context.Context, accountID int64) ([]TierRequest, error)
	// PendingTierRequests returns every pending request, oldest first.
	PendingTierRequests(ctx context.Context) ([]TierRequest, error)
	// DecideTierRequest sets a pending request's state (approved or
	// declined), note and DecidedAt; deciding a decided one gives an error
	// wrapping catalog.ErrInvalid.
	DecideTierRequest(ctx context.Context, id int64, s RequestState, note string, now time.Time) (TierRequest, error)
}

// maxEmail bounds an address (RFC 5321's path limit).
const maxEmail = 254

// NormalizeEmail returns the address in s, trimmed, with its domain in
// lower case, or an error wrapping catalog.ErrInvalid when s is not one
// plain address (no display name, no list, at most 254 bytes, a dot in the
// domain).
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not an email address: %w", clip(s), catalog.ErrInvalid)
	if s == "" || len(s) > maxEmail || strings.ContainsAny(s, "<>,;\"\r\n\t ") {
		return "", bad
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", bad
	}
	local, domain, ok := strings.Cut(a.Address, "@")
	if !ok || local == "" || !strings.Contains(strings.Trim(domain, "."), ".") {
		return "", bad
	}
	return local + "@" + strings.ToLower(domain), nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}

// NewSecret returns a fresh secret for a sign-in link or a session cookie
// (256 random bits, URL-safe base64, 43 characters) and its Hash.
func NewSecret() (secret, hash string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand since Go 1.24)
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, Hash(secret)
}

// Hash is the stored form of a secret: its hex SHA-256.
func Hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// ValidSecret reports whether s has the shape NewSecret gives, so a
// malformed cookie or link never reaches a store.
func ValidSecret(s string) bool {
	if len(s) != 43 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}
