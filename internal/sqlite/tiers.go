package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

var _ apikey.TierStore = (*DB)(nil)

// TierLimits returns the stored limits of every tier that has some.
func (d *DB) TierLimits(ctx context.Context) (apikey.Tiers, error) {
	return tierLimits(ctx, d.db)
}

func tierLimits(ctx context.Context, q querier) (apikey.Tiers, error) {
	rows, err := q.QueryContext(ctx, `SELECT tier, per_minute, per_day FROM tier_limits`)
	if err != nil {
		return nil, fmt.Errorf("tier limits: %w", err)
	}
	defer rows.Close()
	out := apikey.Tiers{}
	for rows.Next() {
		var t string
		var l apikey.Limits
		if err := rows.Scan(&t, &l.PerMinute, &l.PerDay); err != nil {
			return nil, fmt.Errorf("tier limits: %w", err)
		}
		// A row no command could have written (another tier's name) is
		// not a tier of this service.
		if slices.Contains(apikey.AllTiers[:], apikey.Tier(t)) {
			out[apikey.Tier(t)] = l
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tier limits: %w", err)
	}
	return out, nil
}

// SetTierLimits stores t's limits, replacing any.
func (d *DB) SetTierLimits(ctx context.Context, t apikey.Tier, l apikey.Limits) error {
	if err := apikey.CheckTierLimits(t, l); err != nil {
		return err
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO tier_limits (tier, per_minute, per_day, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tier) DO UPDATE SET per_minute = excluded.per_minute, per_day = excluded.per_day, updated_at = excluded.updated_at`,
		string(t), l.PerMinute, l.PerDay, d.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("set tier limits of %s: %w", t, err)
	}
	return nil
}

// SeedTierLimits stores the limits of the tiers of ts that have none yet.
func (d *DB) SeedTierLimits(ctx context.Context, ts apikey.Tiers) (apikey.Tiers, error) {
	if err := ts.Check(); err != nil {
		return nil, err
	}
	// Only a database that lacks a tier is written to: opening an
	// up-to-date one never waits for the write lock.
	stored, err := d.TierLimits(ctx)
	if err != nil {
		return nil, err
	}
	missing := false
	for t := range ts {
		if _, ok := stored[t]; !ok {
			missing = true
		}
	}
	if !missing {
		return stored, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("seed tier limits: %w", err)
	}
	defer tx.Rollback()
	now := d.now().UnixMilli()
	for _, t := range apikey.AllTiers {
		l, ok := ts[t]
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tier_limits (tier, per_minute, per_day, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (tier) DO NOTHING`, string(t), l.PerMinute, l.PerDay, now); err != nil {
			return nil, fmt.Errorf("seed tier limits: %w", err)
		}
	}
	out, err := tierLimits(ctx, tx)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("seed tier limits: %w", err)
	}
	return out, nil
}
