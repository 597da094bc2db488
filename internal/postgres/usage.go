package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/jackc/pgx/v5"
)

var _ usage.Store = (*DB)(nil)

// addUsage adds counts to usage_hourly or usage_daily (the table and its
// time column are constants). The rows arrive as arrays, are summed per
// row of the table first (ON CONFLICT may touch a row once per statement)
// and are written in key order, so replicas flushing at the same moment
// lock rows in the same order and never deadlock. Counts from several
// replicas add up: count = count + EXCLUDED.count.
const addUsage = `INSERT INTO %[1]s (key_prefix, endpoint, status_class, %[2]s, count)
	SELECT p, e, s, t, SUM(n) FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bigint[]) AS u (p, e, s, t, n)
	GROUP BY p, t, e, s ORDER BY p, t, e, s
	ON CONFLICT (key_prefix, %[2]s, endpoint, status_class) DO UPDATE SET count = %[1]s.count + EXCLUDED.count`

const addClicks = `INSERT INTO clicks_daily (perfume_id, day, count)
	SELECT id, t, SUM(n) FROM unnest($1::bigint[], $2::timestamptz[], $3::bigint[]) AS u (id, t, n)
	GROUP BY id, t ORDER BY id, t
	ON CONFLICT (perfume_id, day) DO UPDATE SET count = clicks_daily.count + EXCLUDED.count`

// RecordUsage adds a batch of counts in one transaction: each hourly count
// goes to its hour and to its UTC day; latency, views and empty searches
// go to their own tables (see analytics.go). A batch holding a count that
// cannot be stored is refused before anything of it is written.
func (d *DB) RecordUsage(ctx context.Context, b usage.Batch) error {
	if b.Empty() {
		return nil
	}
	if err := b.Check(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	n := len(b.Hourly)
	prefixes, endpoints, classes := make([]string, n), make([]string, n), make([]string, n)
	hours, days, counts := make([]time.Time, n), make([]time.Time, n), make([]int64, n)
	for i, c := range b.Hourly {
		prefixes[i], endpoints[i], classes[i], counts[i] = c.KeyPrefix, c.Endpoint, c.StatusClass, c.Count
		hours[i] = c.Start.UTC().Truncate(time.Hour)
		days[i] = c.Start.UTC().Truncate(24 * time.Hour)
	}
	ids, clickDays, clicks := make([]int64, len(b.Clicks)), make([]time.Time, len(b.Clicks)), make([]int64, len(b.Clicks))
	for i, c := range b.Clicks {
		ids[i], clickDays[i], clicks[i] = c.PerfumeID, c.Day.UTC().Truncate(24*time.Hour), c.Count
	}
	// One round trip: the batch runs as one implicit transaction.
	batch := &pgx.Batch{}
	if n > 0 {
		batch.Queue(fmt.Sprintf(addUsage, "usage_hourly", "hour"), prefixes, endpoints, classes, hours, counts)
		batch.Queue(fmt.Sprintf(addUsage, "usage_daily", "day"), prefixes, endpoints, classes, days, counts)
	}
	if len(ids) > 0 {
		batch.Queue(addClicks, ids, clickDays, clicks)
	}
	queueAnalytics(batch, b)
	if err := d.inTx(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, batch).Close() }); err != nil {
		return fail("record usage", err)
	}
	return nil
}

// inTx runs fn in a transaction and commits it when fn succeeds.
func (d *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, d.pool, fn)
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
		` WHERE ` + col + ` >= $1 AND ` + col + ` < $2 AND ($3 = '' OR key_prefix = $3)
		ORDER BY ` + col + `, key_prefix, endpoint, status_class`
	rows, err := d.pool.Query(ctx, q, from, to, prefix)
	if err != nil {
		return nil, fail("read "+table, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.Count, error) {
		var c usage.Count
		err := r.Scan(&c.KeyPrefix, &c.Endpoint, &c.StatusClass, &c.Start, &c.Count)
		c.Start = c.Start.UTC()
		return c, err
	})
	if err != nil {
		return nil, fail("read "+table, err)
	}
	return emptyNil(out), nil
}

// emptyNil returns nil for an empty slice, as the SQLite backend does.
func emptyNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// DailyClicks returns buy-link clicks of days in [from, to), by day then perfume.
func (d *DB) DailyClicks(ctx context.Context, from, to time.Time) ([]usage.Click, error) {
	rows, err := d.pool.Query(ctx, `SELECT perfume_id, day, count FROM clicks_daily
		WHERE day >= $1 AND day < $2 ORDER BY day, perfume_id`, from, to)
	if err != nil {
		return nil, fail("read clicks", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.Click, error) {
		var c usage.Click
		err := r.Scan(&c.PerfumeID, &c.Day, &c.Count)
		c.Day = c.Day.UTC()
		return c, err
	})
	if err != nil {
		return nil, fail("read clicks", err)
	}
	return emptyNil(out), nil
}

// PruneHourlyUsage deletes hourly counts and hourly latency of hours before
// before, in one transaction, and returns the rows deleted from both.
func (d *DB) PruneHourlyUsage(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		for _, table := range []string{"usage_hourly", "latency_hourly"} {
			tag, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE hour < $1`, before)
			if err != nil {
				return err
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, fail("prune hourly usage", err)
	}
	return total, nil
}

// RecordSignals stores abuse signals in one statement.
func (d *DB) RecordSignals(ctx context.Context, signals []usage.Signal) error {
	if len(signals) == 0 {
		return nil
	}
	n := len(signals)
	kinds, prefixes, ips, details := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	counts, windows, ats := make([]int64, n), make([]int64, n), make([]time.Time, n)
	for i, s := range signals {
		kinds[i], prefixes[i], ips[i], details[i] = s.Kind, s.KeyPrefix, s.ClientIP, s.Detail
		counts[i], windows[i], ats[i] = s.Count, int64(s.Window/time.Second), s.At
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO abuse_signals (kind, key_prefix, client_ip, count, window_seconds, detail, at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::timestamptz[])`,
		kinds, prefixes, ips, counts, windows, details, ats); err != nil {
		return fail("record signals", err)
	}
	return nil
}

// Signals returns the signals at or after since, newest first, at most limit.
func (d *DB) Signals(ctx context.Context, since time.Time, limit int) ([]usage.Signal, error) {
	rows, err := d.pool.Query(ctx, `SELECT id, kind, key_prefix, client_ip, count, window_seconds, detail, at
		FROM abuse_signals WHERE at >= $1 ORDER BY at DESC, id DESC LIMIT $2`, since, limit)
	if err != nil {
		return nil, fail("read signals", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.Signal, error) {
		var s usage.Signal
		var window int64
		err := r.Scan(&s.ID, &s.Kind, &s.KeyPrefix, &s.ClientIP, &s.Count, &window, &s.Detail, &s.At)
		s.Window, s.At = time.Duration(window)*time.Second, s.At.UTC()
		return s, err
	})
	if err != nil {
		return nil, fail("read signals", err)
	}
	return emptyNil(out), nil
}
