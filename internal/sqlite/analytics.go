package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// addAnalytics adds the latency buckets, views and empty searches of a
// batch checked by usage.Batch.Check, within the transaction of RecordUsage.
// Every upsert adds to the stored count, so batches of replicas merge.
func addAnalytics(ctx context.Context, tx *sql.Tx, b usage.Batch) error {
	if err := addEach(ctx, tx, "latency", `INSERT INTO latency_hourly (hour, endpoint, bucket, count) VALUES (?, ?, ?, ?)
		ON CONFLICT (hour, endpoint, bucket) DO UPDATE SET count = count + excluded.count`,
		b.Latency, func(l usage.Latency) []any {
			return []any{l.Hour.UTC().Truncate(time.Hour).Unix(), l.Endpoint, l.Bucket, l.Count}
		}); err != nil {
		return err
	}
	if err := addEach(ctx, tx, "views", `INSERT INTO views_daily (day, perfume_id, detail_views, similar_views, dupes_views) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (day, perfume_id) DO UPDATE SET detail_views = detail_views + excluded.detail_views,
			similar_views = similar_views + excluded.similar_views, dupes_views = dupes_views + excluded.dupes_views`,
		b.Views, func(v usage.View) []any {
			var pv usage.PerfumeViews
			pv.Add(v.Kind, v.Count)
			return []any{v.Day.UTC().Truncate(24 * time.Hour).Unix(), v.PerfumeID, pv.Detail, pv.Similar, pv.Dupes}
		}); err != nil {
		return err
	}
	return addEach(ctx, tx, "empty searches", `INSERT INTO empty_searches_daily (day, query, count) VALUES (?, ?, ?)
		ON CONFLICT (day, query) DO UPDATE SET count = count + excluded.count`,
		b.EmptySearches, func(s usage.Search) []any {
			return []any{s.Day.UTC().Truncate(24 * time.Hour).Unix(), s.Query, s.Count}
		})
}

// addEach runs the upsert q, prepared once, with the arguments of each row.
func addEach[T any](ctx context.Context, tx *sql.Tx, what, q string, rows []T, args func(T) []any) error {
	if len(rows) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return fmt.Errorf("record %s: %w", what, err)
	}
	defer st.Close()
	for _, r := range rows {
		if _, err := st.ExecContext(ctx, args(r)...); err != nil {
			return fmt.Errorf("record %s: %w", what, err)
		}
	}
	return nil
}

// HourlyLatency returns the latency buckets of hours in [from, to), by
// hour, endpoint and bucket.
func (d *DB) HourlyLatency(ctx context.Context, from, to time.Time) ([]usage.Latency, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT hour, endpoint, bucket, count FROM latency_hourly
		WHERE hour >= ? AND hour < ? ORDER BY hour, endpoint, bucket`, from.Unix(), to.Unix())
	if err != nil {
		return nil, fmt.Errorf("read latency: %w", err)
	}
	return collect(rows, "read latency", func(rows *sql.Rows) (usage.Latency, error) {
		var l usage.Latency
		var hour int64
		err := rows.Scan(&hour, &l.Endpoint, &l.Bucket, &l.Count)
		l.Hour = time.Unix(hour, 0).UTC()
		return l, err
	})
}

// TopViewed returns the perfumes viewed most over days in [from, to), most
// viewed first, then by id, at most limit; nothing for a limit of zero or less.
func (d *DB) TopViewed(ctx context.Context, from, to time.Time, limit int) ([]usage.PerfumeViews, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT perfume_id, SUM(detail_views), SUM(similar_views), SUM(dupes_views) FROM views_daily
		WHERE day >= ? AND day < ? GROUP BY perfume_id
		ORDER BY SUM(detail_views) + SUM(similar_views) + SUM(dupes_views) DESC, perfume_id LIMIT ?`, from.Unix(), to.Unix(), limit)
	if err != nil {
		return nil, fmt.Errorf("read views: %w", err)
	}
	return collect(rows, "read views", func(rows *sql.Rows) (usage.PerfumeViews, error) {
		var v usage.PerfumeViews
		err := rows.Scan(&v.PerfumeID, &v.Detail, &v.Similar, &v.Dupes)
		return v, err
	})
}

// EmptySearches returns the searches that found nothing over days in
// [from, to), summed per query with the last day it was seen, most frequent
// first, then by query (byte order), at most limit; nothing for a limit of
// zero or less.
func (d *DB) EmptySearches(ctx context.Context, from, to time.Time, limit int) ([]usage.Search, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT query, MAX(day), SUM(count) FROM empty_searches_daily
		WHERE day >= ? AND day < ? GROUP BY query
		ORDER BY SUM(count) DESC, query LIMIT ?`, from.Unix(), to.Unix(), limit)
	if err != nil {
		return nil, fmt.Errorf("read empty searches: %w", err)
	}
	return collect(rows, "read empty searches", func(rows *sql.Rows) (usage.Search, error) {
		var s usage.Search
		var day int64
		err := rows.Scan(&s.Query, &day, &s.Count)
		s.Day = time.Unix(day, 0).UTC()
		return s, err
	})
}

// collect scans every row with scan and closes rows; what names the read
// in errors. No rows give nil.
func collect[T any](rows *sql.Rows, what string, scan func(*sql.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
