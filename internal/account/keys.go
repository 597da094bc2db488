package account

import (
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The refusals of the rules on an account's keys (KeyRules), each matching
// catalog.ErrInvalid: the store answered, and said no.
var (
	// ErrKeysHeld refuses a key, or a roll, of an account an operator
	// suspended a key of (Account.HeldSince).
	ErrKeysHeld = fmt.Errorf("an operator suspended a key of the account: %w", catalog.ErrInvalid)
	// ErrTooManyKeys refuses a key past KeyRules.Max.
	ErrTooManyKeys = fmt.Errorf("the account holds the most keys it may: %w", catalog.ErrInvalid)
	// ErrKeyRate refuses a key past KeyRules.PerHour.
	ErrKeyRate = fmt.Errorf("the account made the most keys it may in an hour: %w", catalog.ErrInvalid)
	// ErrNotRollable refuses a roll of a key that is not active, or was
	// rolled already.
	ErrNotRollable = fmt.Errorf("only an active key not rolled yet can be rolled: %w", catalog.ErrInvalid)
	// ErrRollPending refuses a roll of a key whose predecessor (the key it
	// replaced) still works: at most one key is on its way out per key.
	ErrRollPending = fmt.Errorf("the key this one replaced still works: %w", catalog.ErrInvalid)
)

// KeyRules are what an account's keys are held to when it makes or rolls
// one (Store.CreateAccountKey, RollAccountKey).
type KeyRules struct {
	// Max is the most keys that count (Live) the account may hold.
	Max int
	// PerHour is the most keys it may make in the hour before Now, rolls
	// included, whatever it revoked since.
	PerHour int
	// Now is the moment the rules are applied at.
	Now time.Time
}

// Live reports whether k counts against KeyRules.Max at now: every key
// that still works or may work again (active or suspended, not revoked,
// not past its end), a rolled key in its grace period included.
func Live(k apikey.Key, now time.Time) bool {
	return k.State != apikey.Revoked && !k.Expired(now)
}

// EndedKeys asks for a page of an account's keys that stopped working
// (Store.EndedAccountKeys).
type EndedKeys struct {
	// Now is the moment a key has stopped working by; Since leaves out
	// the keys that stopped before it (revoked before it, or past their
	// ExpiresAt before it).
	Now, Since time.Time
	// Before is the ID the page starts below (0: from the newest); Limit
	// is its most keys.
	Before int64
	Limit  int
}
