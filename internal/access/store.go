package access

import (
	"context"
	"errors"
	"fmt"
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
// KeyStore's CreateKey applies it, so the backends agree on the rule.
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
	Origins   []string
	CreatedAt time.Time
	// UpdatedAt changes on every change of the key; KeysChangedSince uses it.
	UpdatedAt time.Time
}

// KeyStore persists keys. Lookups of a missing key return an error wrapping
// catalog.ErrNotFound; any other error means the store cannot answer, and
// authentication then fails closed.
type KeyStore interface {
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
	// KeysChangedSince returns the keys whose UpdatedAt is at or after
	// since, so replicas can refresh their caches without a full reload.
	KeysChangedSince(ctx context.Context, since time.Time) ([]Key, error)
}

// UsageCount is a number of requests of one key to one endpoint with one
// status class ("2xx" ... "5xx") in one hour or one day starting at Start
// (UTC).
type UsageCount struct {
	KeyPrefix   string
	Endpoint    string
	StatusClass string
	Start       time.Time
	Count       int64
}

// ClickCount is a number of buy-link clicks on one perfume in one UTC day.
type ClickCount struct {
	PerfumeID int64
	Day       time.Time
	Count     int64
}

// UsageBatch is what the meter flushes at once: hourly request counts (the
// store adds each to its hour and to its day) and daily click counts.
type UsageBatch struct {
	Hourly []UsageCount
	Clicks []ClickCount
}

// Empty reports whether b holds nothing to write.
func (b UsageBatch) Empty() bool { return len(b.Hourly) == 0 && len(b.Clicks) == 0 }

// Signal kinds recorded for the admin dashboard.
const (
	SignalLimitHits    = "limit_hits"    // a key keeps hitting its limits
	SignalManyIPs      = "many_ips"      // a key is used from unusually many client IPs
	SignalFailedChecks = "failed_checks" // a burst of failed key checks from one client IP
)

// Signal is one abuse observation.
type Signal struct {
	ID        int64
	Kind      string
	KeyPrefix string // empty for failed_checks
	ClientIP  string // empty for many_ips
	// Count is what crossed the threshold (refusals, distinct IPs, failures)
	// within Window.
	Count  int64
	Window time.Duration
	Detail string
	At     time.Time
}

// UsageStore persists usage counts and abuse signals.
type UsageStore interface {
	// RecordUsage adds every count of b to the stored totals in one
	// transaction: all of b is written or none of it.
	RecordUsage(ctx context.Context, b UsageBatch) error
	// DailyUsage returns the per-day counts of a key (every key when prefix
	// is empty) for days starting in [from, to), ordered by day.
	DailyUsage(ctx context.Context, prefix string, from, to time.Time) ([]UsageCount, error)
	// HourlyUsage is DailyUsage by the hour, for the hours still kept.
	HourlyUsage(ctx context.Context, prefix string, from, to time.Time) ([]UsageCount, error)
	// DailyClicks returns the buy-link clicks of days in [from, to).
	DailyClicks(ctx context.Context, from, to time.Time) ([]ClickCount, error)
	// PruneHourlyUsage deletes hourly counts of hours before before and
	// returns how many rows went. Daily counts are kept.
	PruneHourlyUsage(ctx context.Context, before time.Time) (int64, error)
	// RecordSignals stores abuse signals.
	RecordSignals(ctx context.Context, s []Signal) error
	// Signals returns the signals at or after since, newest first, at most limit.
	Signals(ctx context.Context, since time.Time, limit int) ([]Signal, error)
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
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// originAllowed reports whether a request's Origin header value may use k.
func originAllowed(k Key, origin string) bool {
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
