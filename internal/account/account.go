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
	"strings"
	"time"
	"unicode/utf8"

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
// loses its email. A live account is the only one of its address as
// FoldEmail spells it, but for the duplicates found when addresses were
// first folded (DuplicateOf).
type Account struct {
	ID int64
	// Email is the address as first signed in with (NormalizeEmail); ""
	// once deleted.
	Email     string
	CreatedAt time.Time
	DeletedAt time.Time // zero while the account lives
	// Disabled is set by an operator (the admin dashboard): the account's
	// keys are suspended, and it may neither sign in nor make keys. Of
	// accounts of one address (DuplicateOf), disabling or enabling one
	// does all.
	Disabled bool
	// HeldSince is when an operator suspended one of the account's keys:
	// from then on it may neither make nor roll keys (revoking the
	// suspended key does not end it), until an operator resumes the key
	// or releases the hold. Zero: not held.
	HeldSince time.Time
	// DuplicateOf is, for an account that shares its folded address with
	// an older one (both made before addresses were folded), the older
	// one's ID; 0 otherwise. Such accounts are kept apart, and reported.
	DuplicateOf int64
}

// Held reports whether the account may not make or roll keys because an
// operator suspended one of them.
func (a Account) Held() bool { return !a.HeldSince.IsZero() }

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

// Check refuses a request without key, tier or use case, with text over
// its bound, or with text that is not UTF-8, with an error wrapping
// catalog.ErrInvalid.
func (r TierRequest) Check() error {
	switch {
	case r.KeyPrefix == "" || r.Tier == "" || strings.TrimSpace(r.UseCase) == "":
		return fmt.Errorf("tier request: key, tier and use case are required: %w", catalog.ErrInvalid)
	case !utf8.ValidString(r.UseCase) || !utf8.ValidString(r.Volume):
		return fmt.Errorf("tier request: the use case and the volume are text (UTF-8): %w", catalog.ErrInvalid)
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
	// SignInLinkEmail returns the address of the link whose token hashes
	// to hash, using nothing: for the page the link opens, which names
	// the account it signs into. An unknown, used or expired (at now) link
	// gives ErrLinkInvalid.
	SignInLinkEmail(ctx context.Context, hash string, now time.Time) (string, error)
	// UseSignInLink consumes the link whose token hashes to hash, once: an
	// unknown, used or expired (at now) link gives ErrLinkInvalid. It
	// returns the live account of the link's address as FoldEmail spells
	// it, created on first use, in the same transaction that marks the
	// link used (of duplicates, the one of the address as typed, else the
	// oldest). A disabled account is returned as it is (Disabled set):
	// the caller refuses it a session.
	UseSignInLink(ctx context.Context, hash string, now time.Time) (Account, error)
	// AccountByID returns an account, deleted or not.
	AccountByID(ctx context.Context, id int64) (Account, error)
	// AccountByEmail returns the live account of an email, found as
	// UseSignInLink finds it.
	AccountByEmail(ctx context.Context, email string) (Account, error)
	// ListAccounts returns every account, oldest first.
	ListAccounts(ctx context.Context) ([]Account, error)
	// DuplicateAccounts returns the live accounts that share their folded
	// address with another live one (made before addresses were folded),
	// grouped by address, oldest first within each: for the operator.
	DuplicateAccounts(ctx context.Context) ([]Account, error)
	// DeleteAccount, in one transaction, revokes the account's keys and
	// erases their email, erases the account's email, ends its sessions
	// and drops its unused sign-in links and its tier requests (their free
	// text is the developer's). Usage counts are kept. Deleting a deleted
	// account again changes nothing (DeletedAt stays the first).
	DeleteAccount(ctx context.Context, id int64, now time.Time) error

	// SetAccountDisabled disables (suspending every active key of the
	// account and ending its sessions) or enables (resuming the keys it
	// suspended, not those an operator suspended or changed since) an
	// account, and every live account of its folded address with it, in
	// one transaction, and returns it. Disabling again suspends any key
	// made active meanwhile. An unknown account gives an error wrapping
	// catalog.ErrNotFound.
	SetAccountDisabled(ctx context.Context, id int64, disabled bool) (Account, error)
	// ReleaseKeyHold ends the hold an operator's suspension of a key put
	// on the account (Account.HeldSince), and returns the account. An
	// unknown account gives an error wrapping catalog.ErrNotFound.
	ReleaseKeyHold(ctx context.Context, id int64) (Account, error)

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
	// LiveAccountKeys returns the account's keys that count against
	// KeyRules.Max at now (Live), newest first.
	LiveAccountKeys(ctx context.Context, accountID int64, now time.Time) ([]apikey.Key, error)
	// EndedAccountKeys returns a page of the account's keys that had
	// stopped working at q.Now (revoked, or past their ExpiresAt), newest
	// first (by ID): those that stopped at or after q.Since, with an ID
	// below q.Before (0: from the newest), at most q.Limit.
	EndedAccountKeys(ctx context.Context, accountID int64, q EndedKeys) ([]apikey.Key, error)
	// CreateAccountKey stores k, a key of the account k.AccountID (as
	// apikey.Store's CreateKey does), in one transaction that holds the
	// account, so that keys made at once never pass the rules: a key of
	// an account that is unknown, deleted or disabled gives an error
	// wrapping catalog.ErrNotFound; one the rules refuse gives
	// ErrKeysHeld, ErrTooManyKeys or ErrKeyRate.
	CreateAccountKey(ctx context.Context, k apikey.Key, rules KeyRules) (apikey.Key, error)
	// RollAccountKey replaces the account's active key old by k, in one
	// transaction as CreateAccountKey: k is stored, and old stops at
	// stopAt (revoked now when stopAt is zero). Besides CreateAccountKey's
	// refusals (the maximum counting old while it works), a key of
	// another account gives catalog.ErrNotFound, a key that is not active
	// or was rolled already ErrNotRollable, and a key whose predecessor
	// still works ErrRollPending: at most one key on its way out per key.
	// It returns old as changed and k as stored.
	RollAccountKey(ctx context.Context, old string, k apikey.Key, stopAt time.Time, rules KeyRules) (apikey.Key, apikey.Key, error)

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
