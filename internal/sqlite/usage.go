package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

var _ usage.Store = (*DB)(nil)

// RecordUsage adds a batch of counts in one transaction: each hourly count
// goes to its hour and to its UTC day; latency, views and empty searches
// go to their own tables (see analytics.go). A batch holding a count that
// cannot be stored is refused before anything of it is written.
func (d *DB) RecordUsage(ctx context.Context, b usage.Batch) error {
	if b.Empty() {
		return nil
	}
	if err := b.Check(); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	defer tx.Rollback()
	hourly, err := tx.PrepareContext(ctx, `INSERT INTO usage_hourly (key_prefix, endpoint, status_class, hour, count)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_prefix, hour, endpoint, status_class) DO UPDATE SET count = count + excluded.count`)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	defer hourly.Close()
	daily, err := tx.PrepareContext(ctx, `INSERT INTO usage_daily (key_prefix, endpoint, status_class, day, count)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_prefix, day, endpoint, status_class) DO UPDATE SET count = count + excluded.count`)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	defer daily.Close()
	for _, c := range b.Hourly {
		hour := c.Start.UTC().Truncate(time.Hour).Unix()
		day := c.Start.UTC().Truncate(24 * time.Hour).Unix()
		if _, err := hourly.ExecContext(ctx, c.KeyPrefix, c.Endpoint, c.StatusClass, hour, c.Count); err != nil {
			return fmt.Errorf("record usage: %w", err)
		}
		if _, err := daily.ExecContext(ctx, c.KeyPrefix, c.Endpoint, c.StatusClass, day, c.Count); err != nil {
			return fmt.Errorf("record usage: %w", err)
		}
	}
	for _, c := range b.Clicks {
		day := c.Day.UTC().Truncate(24 * time.Hour).Unix()
		if _, err := tx.ExecContext(ctx, `INSERT INTO clicks_daily (perfume_id, day, count) VALUES (?, ?, ?)
			ON CONFLICT (perfume_id, day) DO UPDATE SET count = count + excluded.count`, c.PerfumeID, day, c.Count); err != nil {
			return fmt.Errorf("record clicks: %w", err)
		}
	}
	if err := addAnalytics(ctx, tx, b); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	return nil
}

// DailyUsage returns per-day counts of a key (all keys for "") in [from, to).
func (d *DB) DailyUsage(ctx context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	return d.usage(ctx, "usage_daily", "day", prefix, from, to)
}

// HourlyUsage returns per-hour counts of a key (all keys for "") in [from, to).
func (d *DB) HourlyUsage(ctx context.Context, prefix string, from, to time.Time) ([]usage.Count, error) {
	return d.usage(ctx, "usage_hourly", "hour", prefix, from, to)
}

// usage reads one of the two usage tables; table and col are constants.
func (d *DB) usage(ctx context.Context, table, col, prefix string, from, to time.Time) ([]usage.Count, error) {
	q := `SELECT key_prefix, endpoint, status_class, ` + col + `, count FROM ` + table +
		` WHERE ` + col + ` >= ? AND ` + col + ` < ? AND (? = '' OR key_prefix = ?)
		ORDER BY ` + col + `, key_prefix, endpoint, status_class`
	rows, err := d.db.QueryContext(ctx, q, from.Unix(), to.Unix(), prefix, prefix)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	var out []usage.Count
	for rows.Next() {
		var c usage.Count
		var start int64
		if err := rows.Scan(&c.KeyPrefix, &c.Endpoint, &c.StatusClass, &start, &c.Count); err != nil {
			return nil, fmt.Errorf("read %s: %w", table, err)
		}
		c.Start = time.Unix(start, 0).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	return out, nil
}

// DailyClicks returns buy-link clicks of days in [from, to), by day then perfume.
func (d *DB) DailyClicks(ctx context.Context, from, to time.Time) ([]usage.Click, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT perfume_id, day, count FROM clicks_daily
		WHERE day >= ? AND day < ? ORDER BY day, perfume_id`, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("read clicks: %w", err)
	}
	defer rows.Close()
	var out []usage.Click
	for rows.Next() {
		var c usage.Click
		var day int64
		if err := rows.Scan(&c.PerfumeID, &day, &c.Count); err != nil {
			return nil, fmt.Errorf("read clicks: %w", err)
		}
		c.Day = time.Unix(day, 0).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read clicks: %w", err)
	}
	return out, nil
}

// PruneHourlyUsage deletes hourly counts and hourly latency of hours before
// before, in one transaction, and returns the rows deleted from both.
func (d *DB) PruneHourlyUsage(ctx context.Context, before time.Time) (int64, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("prune hourly usage: %w", err)
	}
	defer tx.Rollback()
	var total int64
	for _, table := range []string{"usage_hourly", "latency_hourly"} {
		res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE hour < ?`, before.Unix())
		if err != nil {
			return 0, fmt.Errorf("prune %s: %w", table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("prune %s: %w", table, err)
		}
		total += n
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("prune hourly usage: %w", err)
	}
	return total, nil
}

// RecordSignals stores abuse signals in one transaction.
func (d *DB) RecordSignals(ctx context.Context, signals []usage.Signal) error {
	if len(signals) == 0 {
		return nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record signals: %w", err)
	}
	defer tx.Rollback()
	for _, s := range signals {
		if _, err := tx.ExecContext(ctx, `INSERT INTO abuse_signals (kind, key_prefix, client_ip, count, window_seconds, detail, at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Kind, s.KeyPrefix, s.ClientIP, s.Count, int64(s.Window/time.Second), s.Detail, s.At.UnixMilli()); err != nil {
			return fmt.Errorf("record signals: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record signals: %w", err)
	}
	return nil
}

// Signals returns the signals at or after since, newest first, at most limit.
func (d *DB) Signals(ctx context.Context, since time.Time, limit int) ([]usage.Signal, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, kind, key_prefix, client_ip, count, window_seconds, detail, at
		FROM abuse_signals WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?`, since.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("read signals: %w", err)
	}
	defer rows.Close()
	var out []usage.Signal
	for rows.Next() {
		var s usage.Signal
		var window, at int64
		if err := rows.Scan(&s.ID, &s.Kind, &s.KeyPrefix, &s.ClientIP, &s.Count, &window, &s.Detail, &at); err != nil {
			return nil, fmt.Errorf("read signals: %w", err)
		}
		s.Window, s.At = time.Duration(window)*time.Second, time.UnixMilli(at).UTC()
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read signals: %w", err)
	}
	return out, nil
}
