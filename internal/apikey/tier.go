package apikey

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Tier is the plan a key belongs to; it sets the key's default limits.
type Tier string

// The tiers of the contract.
const (
	Free       Tier = "free"
	Basic      Tier = "basic"
	Pro        Tier = "pro"
	Enterprise Tier = "enterprise"
)

// AllTiers lists the tiers, smallest first.
var AllTiers = [...]Tier{Free, Basic, Pro, Enterprise}

// ParseTier maps a tier name to a Tier.
func ParseTier(s string) (Tier, error) {
	t := Tier(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range AllTiers {
		if t == known {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown tier %q (want free, basic, pro or enterprise): %w", s, catalog.ErrInvalid)
}

// Limits are the two windows of a key: requests admitted in any trailing
// 60 seconds and in any trailing 24 hours. For a limiter, 0 means "no such
// window"; for a key's override, 0 means "the tier's default".
type Limits struct {
	PerMinute int64 `json:"perMinute"`
	PerDay    int64 `json:"perDay"`
}

// Tiers is the configuration of the tiers' default limits.
type Tiers map[Tier]Limits

// DefaultTiers returns the contract's tier limits.
func DefaultTiers() Tiers {
	return Tiers{
		Free:       {PerMinute: 60, PerDay: 1_000},
		Basic:      {PerMinute: 300, PerDay: 25_000},
		Pro:        {PerMinute: 1_000, PerDay: 250_000},
		Enterprise: {PerMinute: 5_000, PerDay: 5_000_000},
	}
}

// Validate reports a tier without positive limits.
func (ts Tiers) Validate() error {
	for _, t := range AllTiers {
		l, ok := ts[t]
		if !ok || l.PerMinute <= 0 || l.PerDay <= 0 {
			return fmt.Errorf("tier %s: limits must be positive, have %d/min %d/day: %w", t, l.PerMinute, l.PerDay, catalog.ErrInvalid)
		}
	}
	return nil
}

// For returns the limits that apply to k: its tier's, with the key's own
// override of either number taking precedence. An unknown tier gets the
// free tier's limits, the safe side.
func (ts Tiers) For(k Key) Limits {
	l, ok := ts[k.Tier]
	if !ok {
		l = ts[Free]
	}
	if k.PerMinute > 0 {
		l.PerMinute = k.PerMinute
	}
	if k.PerDay > 0 {
		l.PerDay = k.PerDay
	}
	return l
}

// ParseTiers applies a configuration string such as
// "free=60/1000,enterprise=10000/20000000" (per minute / per day) to a copy
// of base, for a --tier-limits flag. The empty string changes nothing.
func ParseTiers(spec string, base Tiers) (Tiers, error) {
	out := maps.Clone(base)
	if out == nil {
		out = Tiers{}
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, nums, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("tier limits %q: want tier=PERMINUTE/PERDAY: %w", item, catalog.ErrInvalid)
		}
		t, err := ParseTier(name)
		if err != nil {
			return nil, err
		}
		m, d, ok := strings.Cut(nums, "/")
		pm, err1 := strconv.ParseInt(strings.TrimSpace(m), 10, 64)
		pd, err2 := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
		if !ok || err1 != nil || err2 != nil || pm <= 0 || pd <= 0 {
			return nil, fmt.Errorf("tier limits %q: want two positive whole numbers PERMINUTE/PERDAY: %w", item, catalog.ErrInvalid)
		}
		out[t] = Limits{PerMinute: pm, PerDay: pd}
	}
	return out, nil
}

// String formats ts in the syntax ParseTiers reads.
func (ts Tiers) String() string {
	var parts []string
	for _, t := range AllTiers {
		if l, ok := ts[t]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d/%d", t, l.PerMinute, l.PerDay))
		}
	}
	return strings.Join(parts, ",")
}

// TierStore keeps the tiers' default limits, so that every replica and
// every command reads the same numbers: the store, not a flag, is the
// truth. A tier without stored limits is absent from TierLimits; callers
// complete the answer with Complete. `fragrance tiers set` and the admin
// dashboard change limits with SetTierLimits; `serve` seeds a new database
// with SeedTierLimits.
type TierStore interface {
	// TierLimits returns the stored limits of every tier that has some.
	TierLimits(ctx context.Context) (Tiers, error)
	// SetTierLimits stores t's limits, replacing any. An unknown tier or a
	// limit below 1 gives an error wrapping catalog.ErrInvalid.
	SetTierLimits(ctx context.Context, t Tier, l Limits) error
	// SeedTierLimits stores the limits of each tier of ts that has none
	// stored yet, leaves stored ones alone, and returns TierLimits after.
	SeedTierLimits(ctx context.Context, ts Tiers) (Tiers, error)
}

// CheckTierLimits is the rule every TierStore applies before storing: a
// known tier and two positive limits.
func CheckTierLimits(t Tier, l Limits) error {
	if !slices.Contains(AllTiers[:], t) {
		return fmt.Errorf("tier %q: unknown (want free, basic, pro or enterprise): %w", t, catalog.ErrInvalid)
	}
	if l.PerMinute <= 0 || l.PerDay <= 0 {
		return fmt.Errorf("tier %s: limits must be positive, have %d/min %d/day: %w", t, l.PerMinute, l.PerDay, catalog.ErrInvalid)
	}
	return nil
}

// Complete returns base with the limits of ts in place of its own: the
// stored tiers over the defaults (or over the tiers a server started with).
func (ts Tiers) Complete(base Tiers) Tiers {
	out := maps.Clone(base)
	if out == nil {
		out = Tiers{}
	}
	maps.Copy(out, ts)
	return out
}

// Check applies CheckTierLimits to every tier of ts, as a TierStore does
// before seeding.
func (ts Tiers) Check() error {
	for _, t := range slices.Sorted(maps.Keys(ts)) {
		if err := CheckTierLimits(t, ts[t]); err != nil {
			return err
		}
	}
	return nil
}
