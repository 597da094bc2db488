// Package apikey is the domain of API keys: the key format (a random
// secret with a readable prefix and a checksum, stored only as a SHA-256
// hash), the key record and its states, the tiers and their limits, and
// the Store the backends meet. It holds types, pure functions and
// interfaces, and imports only the standard library and the catalogue's
// error kinds.
//
// A key is "fds_", 43 random base62 characters (256 bits from crypto/rand)
// and a 6-character base62 CRC32 of the random part: 53 characters. The
// checksum refuses a mistyped key before any store lookup. Only the SHA-256
// of the key and its display prefix ("fds_" and 8 characters) are stored;
// Issue returns the key once. States are active, suspended (403) and
// revoked (401, final).
package apikey

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// State is the life-cycle state of a key.
type State string

// Key states. Revoked is final: a store refuses to change it.
const (
	Active    State = "active"
	Suspended State = "suspended"
	Revoked   State = "revoked"
)

// Valid reports whether s is one of the three states.
func (s State) Valid() bool { return s == Active || s == Suspended || s == Revoked }

// ErrKeyExists reports a key whose prefix or hash is already stored.
var ErrKeyExists = errors.New("key already exists")

// ErrRevoked reports an attempt to change the state of a revoked key. It
// matches catalog.ErrInvalid.
var ErrRevoked = fmt.Errorf("key is revoked, which is final: %w", catalog.ErrInvalid)

// ForCreate is k ready to be stored as a new key: an empty state becomes
// active, and a key without prefix, hash or tier, or with an unknown
// state, is refused with an error wrapping catalog.ErrInvalid. Every
// Store's CreateKey applies it, so the backends agree on the rule.
func (k Key) ForCreate() (Key, error) {
	if k.State == "" {
		k.State = Active
	}
	if !k.State.Valid() || k.Prefix == "" || k.Hash == "" || k.Tier == "" {
		return Key{}, fmt.Errorf("create key: prefix, hash, tier and a valid state are required: %w", catalog.ErrInvalid)
	}
	return k, nil
}

// Key is one API key as stored: never the secret, only its hash.
type Key struct {
	ID int64
	// Prefix is the short public identifier shown in lists and logs.
	Prefix string
	// Hash is the hex SHA-256 of the full key.
	Hash  string
	Name  string
	Email string
	Tier  Tier
	State State
	// PerMinute and PerDay override the tier's limits when positive.
	PerMinute int64
	PerDay    int64
	// Origins are the browser origins (scheme://host[:port]) allowed to use
	// the key; empty allows every origin.
	Origins []string
	// AccountID is the developer-portal account that owns the key (package
	// account); 0 for a key an operator made.
	AccountID int64
	// ExpiresAt, when set, is the moment the key stops working (a rolled
	// key's grace period): from then on it is refused like a revoked key.
	ExpiresAt time.Time
	CreatedAt time.Time
	// UpdatedAt changes on every change of the key; KeysChangedSince uses it.
	UpdatedAt time.Time
}

// Store persists keys. Lookups of a missing key return an error wrapping
// catalog.ErrNotFound; any other error means the store cannot answer, and
// authentication then fails closed.
type Store interface {
	// CreateKey stores k (Prefix and Hash set, ID ignored), stamping
	// CreatedAt and UpdatedAt, and returns it as stored. A taken prefix or
	// hash gives an error wrapping ErrKeyExists.
	CreateKey(ctx context.Context, k Key) (Key, error)
	// KeyByHash returns the key whose hash is hash.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// KeyByPrefix returns the key whose display prefix is prefix.
	KeyByPrefix(ctx context.Context, prefix string) (Key, error)
	// ListKeys returns every key, oldest first.
	ListKeys(ctx context.Context) ([]Key, error)
	// SetKeyState changes a key's state and returns the key. Changing a
	// revoked key gives an error wrapping ErrRevoked.
	SetKeyState(ctx context.Context, prefix string, s State) (Key, error)
	// SetKeyLimits sets a key's overrides (0 = tier default) and returns it.
	SetKeyLimits(ctx context.Context, prefix string, perMinute, perDay int64) (Key, error)
	// SetKeyTier changes a key's tier and returns the key. Changing a
	// revoked key gives ErrRevoked.
	SetKeyTier(ctx context.Context, prefix string, tier Tier) (Key, error)
	// SetKeyExpiry sets the moment a key stops working (zero: never) and
	// returns the key. Setting it on a revoked key gives ErrRevoked.
	SetKeyExpiry(ctx context.Context, prefix string, at time.Time) (Key, error)
	// KeysChangedSince returns the keys whose UpdatedAt is at or after
	// since, so replicas can refresh their caches without a full reload.
	KeysChangedSince(ctx context.Context, since time.Time) ([]Key, error)
}

// ParseOrigins reads a comma-separated list of browser origins for a key,
// as typed by an operator, and returns them normalised (lower case, no
// trailing slash, no path).
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		n, ok := normalizeOrigin(o)
		if !ok {
			return nil, fmt.Errorf("origin %q: want scheme://host[:port]: %w", o, catalog.ErrInvalid)
		}
		out = append(out, n)
	}
	return out, nil
}

// normalizeOrigin returns the canonical scheme://host[:port] of an origin.
func normalizeOrigin(o string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(o), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil || !validHost(u.Hostname()) {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// validHost reports whether h is a host name (letters, digits, dots,
// hyphens and underscores) or an IP address, as an Origin header has it.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	if strings.Contains(h, ":") { // an IPv6 address, unbracketed by Hostname
		_, err := netip.ParseAddr(h)
		return err == nil
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Expired reports whether k has passed its ExpiresAt at now.
func (k Key) Expired(now time.Time) bool { return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt) }

// AllowsOrigin reports whether a request whose Origin header is origin
// may use k: a key without origins allows every origin.
func (k Key) AllowsOrigin(origin string) bool {
	if len(k.Origins) == 0 {
		return true
	}
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false
	}
	for _, o := range k.Origins {
		if o == n {
			return true
		}
	}
	return false
}
