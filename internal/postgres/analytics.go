package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/usage"
)

// The upserts of latency, views and empty searches work as addUsage does:
// rows arrive as arrays, are summed per row of the table, written in key
// order (so concurrent replicas never deadlock) and added to what is stored.
const (
	addLatency = `INSERT INTO latency_hourly (hour, endpoint, bucket, count)
	SELECT t, e, b, SUM(n) FROM unnest($1::timestamptz[], $2::text[], $3::smallint[], $4::bigint[]) AS u (t, e, b, n)
	GROUP BY t, e, b ORDER BY t, e, b
	ON CONFLICT (hour, endpoint, bucket) DO UPDATE SET count = latency_hourly.count + EXCLUDED.count`

	addViews = `INSERT INTO views_daily (day, perfume_id, detail_views, similar_views, dupes_views)
	SELECT t, id, SUM(d), SUM(s), SUM(p) FROM unnest($1::timestamptz[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u (t, id, d, s, p)
	GROUP BY t, id ORDER BY t, id
	ON CONFLICT (day, perfume_id) DO UPDATE SET detail_views = views_daily.detail_views + EXCLUDED.detail_views,
		similar_views = views_daily.similar_views + EXCLUDED.similar_views, dupes_views = views_daily.dupes_views + EXCLUDED.dupes_views`

	addEmptySearches = `INSERT INTO empty_searches_daily (day, query, count)
	SELECT t, q, SUM(n) FROM unnest($1::timestamptz[], $2::text[], $3::bigint[]) AS u (t, q, n)
	GROUP BY t, q ORDER BY t, q
	ON CONFLICT (day, query) DO UPDATE SET count = empty_searches_daily.count + EXCLUDED.count`
)

// queueAnalytics queues the upserts of the latency buckets, views and empty
// searches of a batch checked by usage.Batch.Check, after the request counts
// and clicks of RecordUsage, in its transaction.
func queueAnalytics(batch *pgx.Batch, b usage.Batch) {
	if n := len(b.Latency); n > 0 {
		hours, endpoints, buckets, counts := make([]time.Time, n), make([]string, n), make([]int16, n), make([]int64, n)
		for i, l := range b.Latency {
			hours[i], endpoints[i], buckets[i], counts[i] = l.Hour.UTC().Truncate(time.Hour), l.Endpoint, int16(l.Bucket), l.Count
		}
		batch.Queue(addLatency, hours, endpoints, buckets, counts)
	}
	if n := len(b.Views); n > 0 {
		days, ids := make([]time.Time, n), make([]int64, n)
		detail, similar, dupes := make([]int64, n), make([]int64, n), make([]int64, n)
		for i, v := range b.Views {
			days[i], ids[i] = v.Day.UTC().Truncate(24*time.Hour), v.PerfumeID
			var pv usage.PerfumeViews
			pv.Add(v.Kind, v.Count)
			detail[i], similar[i], dupes[i] = pv.Detail, pv.Similar, pv.Dupes
		}
		batch.Queue(addViews, days, ids, detail, similar, dupes)
	}
	if n := len(b.EmptySearches); n > 0 {
		days, queries, counts := make([]time.Time, n), make([]string, n), make([]int64, n)
		for i, s := range b.EmptySearches {
			days[i], queries[i], counts[i] = s.Day.UTC().Truncate(24*time.Hour), s.Query, s.Count
		}
		batch.Queue(addEmptySearches, days, queries, counts)
	}
}

// HourlyLatency returns the latency buckets of hours in [from, to), by
// hour, endpoint (byte order) and bucket.
func (d *DB) HourlyLatency(ctx context.Context, from, to time.Time) ([]usage.Latency, error) {
	rows, err := d.pool.Query(ctx, `SELECT hour, endpoint, bucket, count FROM latency_hourly
		WHERE hour >= $1 AND hour < $2 ORDER BY hour, endpoint, bucket`, from, to)
	if err != nil {
		return nil, fail("read latency", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.Latency, error) {
		var l usage.Latency
		var bucket int16
		err := r.Scan(&l.Hour, &l.Endpoint, &bucket, &l.Count)
		l.Hour, l.Bucket = l.Hour.UTC(), int(bucket)
		return l, err
	})
	if err != nil {
		return nil, fail("read latency", err)
	}
	return emptyNil(out), nil
}

// TopViewed returns the perfumes viewed most over days in [from, to), most
// viewed first, then by id, at most limit; nothing for a limit of zero or less.
func (d *DB) TopViewed(ctx context.Context, from, to time.Time, limit int) ([]usage.PerfumeViews, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.pool.Query(ctx, `SELECT perfume_id, SUM(detail_views)::bigint, SUM(similar_views)::bigint, SUM(dupes_views)::bigint
		FROM views_daily WHERE day >= $1 AND day < $2 GROUP BY perfume_id
		ORDER BY SUM(detail_views + similar_views + dupes_views) DESC, perfume_id LIMIT $3`, from, to, limit)
	if err != nil {
		return nil, fail("read views", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.PerfumeViews, error) {
		var v usage.PerfumeViews
		err := r.Scan(&v.PerfumeID, &v.Detail, &v.Similar, &v.Dupes)
		return v, err
	})
	if err != nil {
		return nil, fail("read views", err)
	}
	return emptyNil(out), nil
}

// EmptySearches returns the searches that found nothing over days in
// [from, to), summed per query with the last day it was seen, most frequent
// first, then by query (byte order: the column's collation is "C"), at most
// limit; nothing for a limit of zero or less.
func (d *DB) EmptySearches(ctx context.Context, from, to time.Time, limit int) ([]usage.Search, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.pool.Query(ctx, `SELECT query, MAX(day), SUM(count)::bigint FROM empty_searches_daily
		WHERE day >= $1 AND day < $2 GROUP BY query
		ORDER BY SUM(count) DESC, query LIMIT $3`, from, to, limit)
	if err != nil {
		return nil, fail("read empty searches", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (usage.Search, error) {
		var s usage.Search
		err := r.Scan(&s.Query, &s.Day, &s.Count)
		s.Day = s.Day.UTC()
		return s, err
	})
	if err != nil {
		return nil, fail("read empty searches", err)
	}
	return emptyNil(out), nil
}
