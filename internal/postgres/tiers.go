package postgres

import (
	"context"
	"slices"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

var _ apikey.TierStore = (*DB)(nil)

// TierLimits returns the stored limits of every tier that has some.
func (d *DB) TierLimits(ctx context.Context) (apikey.Tiers, error) {
	rows, err := d.pool.Query(ctx, `SELECT tier, per_minute, per_day FROM tier_limits`)
	if err != nil {
		return nil, fail("tier limits", err)
	}
	defer rows.Close()
	out := apikey.Tiers{}
	for rows.Next() {
		var t string
		var l apikey.Limits
		if err := rows.Scan(&t, &l.PerMinute, &l.PerDay); err != nil {
			return nil, fail("tier limits", err)
		}
		// A row no command could have written (another tier's name) is
		// not a tier of this service.
		if slices.Contains(apikey.AllTiers[:], apikey.Tier(t)) {
			out[apikey.Tier(t)] = l
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fail("tier limits", err)
	}
	return out, nil
}

// SetTierLimits stores t's limits, replacing any.
func (d *DB) SetTierLimits(ctx context.Context, t apikey.Tier, l apikey.Limits) error {
	if err := apikey.CheckTierLimits(t, l); err != nil {
		return err
	}
	_, err := d.pool.Exec(ctx, `INSERT INTO tier_limits (tier, per_minute, per_day, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tier) DO UPDATE SET per_minute = EXCLUDED.per_minute, per_day = EXCLUDED.per_day, updated_at = EXCLUDED.updated_at`,
		string(t), l.PerMinute, l.PerDay, d.stamp())
	if err != nil {
		return fail("set tier limits of "+string(t), err)
	}
	return nil
}

// SeedTierLimits stores the limits of the tiers of ts that have none yet;
// replicas seeding at once agree, as the first insert of a tier wins.
func (d *DB) SeedTierLimits(ctx context.Context, ts apikey.Tiers) (apikey.Tiers, error) {
	if err := ts.Check(); err != nil {
		return nil, err
	}
	var names []string
	var perMinute, perDay []int64
	for _, t := range apikey.AllTiers {
		l, ok := ts[t]
		if !ok {
			continue
		}
		names, perMinute, perDay = append(names, string(t)), append(perMinute, l.PerMinute), append(perDay, l.PerDay)
	}
	if len(names) > 0 {
		_, err := d.pool.Exec(ctx, `INSERT INTO tier_limits (tier, per_minute, per_day, updated_at)
			SELECT t, m, p, $4 FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS s(t, m, p)
			ON CONFLICT (tier) DO NOTHING`, names, perMinute, perDay, d.stamp())
		if err != nil {
			return nil, fail("seed tier limits", err)
		}
	}
	return d.TierLimits(ctx)
}
