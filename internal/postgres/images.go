package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// The PostgreSQL backend holds the image blobs as well as the jobs, so
// every replica serves the same images without a shared filesystem.
var _ imgstore.Store = (*DB)(nil)

// PutImage stores or replaces one image; readers see the old bytes until
// the statement commits.
func (d *DB) PutImage(ctx context.Context, kind imgstore.Kind, id int64, data []byte) error {
	if !kind.Valid() {
		return fmt.Errorf("postgres: put image: unknown kind %q: %w", kind, catalog.ErrInvalid)
	}
	if id < 0 {
		return fmt.Errorf("postgres: put image: negative id %d: %w", id, catalog.ErrInvalid)
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO image_blobs (kind, id, data, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (kind, id) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`,
		string(kind), id, data, d.now()); err != nil {
		return fail(fmt.Sprintf("put image %s %d", kind, id), err)
	}
	return nil
}

// Image returns the bytes of one image.
func (d *DB) Image(ctx context.Context, kind imgstore.Kind, id int64) ([]byte, error) {
	var data []byte
	err := d.pool.QueryRow(ctx, `SELECT data FROM image_blobs WHERE kind = $1 AND id = $2`, string(kind), id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: image %s %d: %w", kind, id, catalog.ErrNotFound)
	}
	if err != nil {
		return nil, fail(fmt.Sprintf("image %s %d", kind, id), err)
	}
	return data, nil
}

// EnqueueJobs makes the background-removal job of each id pending (see
// imgstore.Jobs), in one statement.
func (d *DB) EnqueueJobs(ctx context.Context, ids []int64) error {
	_, err := d.insertJobs(ctx, "enqueue image jobs", `DO UPDATE SET state = 'pending', reason = '', attempts = 0,
		lease_until = NULL, queued_at = EXCLUDED.queued_at, updated_at = EXCLUDED.updated_at`, ids)
	return err
}

// QueueMissingJobs creates a pending job for each id without one (see
// imgstore.Jobs), in one statement; existing rows are not touched, so it
// takes no lock another replica's claim would wait for.
func (d *DB) QueueMissingJobs(ctx context.Context, ids []int64) (int, error) {
	return d.insertJobs(ctx, "queue missing image jobs", `DO NOTHING`, ids)
}

// RetryFailedJobs makes pending the failed jobs among ids whose reason ends
// with reasonSuffix (see imgstore.Jobs), in one statement.
func (d *DB) RetryFailedJobs(ctx context.Context, ids []int64, reasonSuffix string) (int, error) {
	if len(ids) == 0 || reasonSuffix == "" {
		return 0, nil
	}
	tag, err := d.pool.Exec(ctx, `UPDATE image_jobs SET state = 'pending', reason = '', attempts = 0,
			lease_until = NULL, queued_at = $3, updated_at = $3
		WHERE id = ANY($1::bigint[]) AND state = 'failed' AND right(reason, length($2)) = $2`,
		ids, reasonSuffix, d.now())
	if err != nil {
		return 0, fail("retry failed image jobs", err)
	}
	return int(tag.RowsAffected()), nil
}

// insertJobs inserts a pending job for each id in one statement, doing
// onConflict where one exists, and returns how many rows changed. Ids are
// deduplicated and written in order, so concurrent calls lock rows alike
// and never deadlock.
func (d *DB) insertJobs(ctx context.Context, what, onConflict string, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	tag, err := d.pool.Exec(ctx, `INSERT INTO image_jobs (id, state, reason, attempts, lease_until, queued_at, updated_at)
		SELECT id, 'pending', '', 0, NULL, $2, $2 FROM unnest($1::bigint[]) AS u (id)
		ON CONFLICT (id) `+onConflict, ids, d.now())
	if err != nil {
		return 0, fail(what, err)
	}
	return int(tag.RowsAffected()), nil
}

const jobColumns = `id, state, reason, attempts, updated_at`

// ClaimJob claims the oldest pending or lapsed job (see imgstore.Jobs).
// FOR UPDATE SKIP LOCKED lets workers on every replica claim at once
// without ever taking the same job or waiting on each other.
func (d *DB) ClaimJob(ctx context.Context, lease time.Duration, maxAttempts int) (imgstore.Job, error) {
	now := d.now()
	var job imgstore.Job
	found := false
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		// Rows another claimer holds are skipped here too: it gives them up.
		if _, err := tx.Exec(ctx, `UPDATE image_jobs SET state = 'failed', lease_until = NULL, updated_at = $1,
				reason = 'interrupted ' || attempts || ' times (worker stopped or crashed mid-job)'
			WHERE id IN (SELECT id FROM image_jobs WHERE state = 'processing' AND lease_until <= $1 AND attempts >= $2
				FOR UPDATE SKIP LOCKED)`, now, maxAttempts); err != nil {
			return fmt.Errorf("give up lapsed: %w", err)
		}
		var err error
		job, err = scanJob(tx.QueryRow(ctx, `WITH next AS (
				SELECT id FROM image_jobs
				WHERE state = 'pending' OR (state = 'processing' AND lease_until <= $1)
				ORDER BY queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
			UPDATE image_jobs j SET state = 'processing', reason = '', attempts = j.attempts + 1,
				lease_until = $2, updated_at = $1
			FROM next WHERE j.id = next.id RETURNING j.id, j.state, j.reason, j.attempts, j.updated_at`,
			now, now.Add(lease)))
		// No row is not a failure: commit, lapsed jobs may just have been
		// marked failed.
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return imgstore.Job{}, fail("claim image job", err)
	}
	if !found {
		return imgstore.Job{}, fmt.Errorf("postgres: claim image job: none waiting: %w", catalog.ErrNotFound)
	}
	return job, nil
}

// CompleteJob ends one claim of a job (see imgstore.Jobs).
func (d *DB) CompleteJob(ctx context.Context, id int64, attempt int, failure string) error {
	state := imgstore.Done
	if failure != "" {
		state = imgstore.Failed
	}
	tag, err := d.pool.Exec(ctx, `UPDATE image_jobs SET state = $1, reason = $2, lease_until = NULL, updated_at = $3
		WHERE id = $4 AND state = 'processing' AND attempts = $5`, string(state), failure, d.now(), id, attempt)
	if err != nil {
		return fail(fmt.Sprintf("complete image job %d", id), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: complete image job %d attempt %d: %w", id, attempt, imgstore.ErrStale)
	}
	return nil
}

// scanJob reads one row of jobColumns.
func scanJob(row pgx.Row) (imgstore.Job, error) {
	var j imgstore.Job
	var state string
	if err := row.Scan(&j.ID, &state, &j.Reason, &j.Attempts, &j.UpdatedAt); err != nil {
		return imgstore.Job{}, err
	}
	j.State = imgstore.State(state)
	j.UpdatedAt = j.UpdatedAt.UTC()
	return j, nil
}

// Job returns the job of one perfume.
func (d *DB) Job(ctx context.Context, id int64) (imgstore.Job, error) {
	j, err := scanJob(d.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM image_jobs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return imgstore.Job{}, fmt.Errorf("postgres: image job %d: %w", id, catalog.ErrNotFound)
	}
	if err != nil {
		return imgstore.Job{}, fail(fmt.Sprintf("image job %d", id), err)
	}
	return j, nil
}

// DoneJobIDs returns the ids of done jobs in ascending order.
func (d *DB) DoneJobIDs(ctx context.Context) ([]int64, error) {
	rows, err := d.pool.Query(ctx, `SELECT id FROM image_jobs WHERE state = 'done' ORDER BY id`)
	if err != nil {
		return nil, fail("done image jobs", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fail("done image jobs", err)
	}
	return emptyNil(ids), nil
}

// JobCounts returns how many jobs are in each state.
func (d *DB) JobCounts(ctx context.Context) (map[imgstore.State]int, error) {
	rows, err := d.pool.Query(ctx, `SELECT state, COUNT(*) FROM image_jobs GROUP BY state`)
	if err != nil {
		return nil, fail("count image jobs", err)
	}
	defer rows.Close()
	out := make(map[imgstore.State]int)
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fail("count image jobs", err)
		}
		out[imgstore.State(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fail("count image jobs", err)
	}
	return out, nil
}

// SetImageVersion records the version of one image (see imgstore.Versions).
func (d *DB) SetImageVersion(ctx context.Context, kind imgstore.Kind, id int64, version string) error {
	if !kind.Valid() {
		return fmt.Errorf("postgres: set image version: unknown kind %q: %w", kind, catalog.ErrInvalid)
	}
	if version == "" || len(version) > imgstore.MaxVersionLen {
		return fmt.Errorf("postgres: set image version: version of %d bytes (1 to %d): %w", len(version), imgstore.MaxVersionLen, catalog.ErrInvalid)
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO image_versions (kind, id, version, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (kind, id) DO UPDATE SET version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
		string(kind), id, version, d.now()); err != nil {
		return fail(fmt.Sprintf("set image version %s %d", kind, id), err)
	}
	return nil
}

// ImageVersions returns the recorded versions of one kind.
func (d *DB) ImageVersions(ctx context.Context, kind imgstore.Kind) (map[int64]string, error) {
	rows, err := d.pool.Query(ctx, `SELECT id, version FROM image_versions WHERE kind = $1`, string(kind))
	if err != nil {
		return nil, fail(fmt.Sprintf("image versions %s", kind), err)
	}
	defer rows.Close()
	out := make(map[int64]string)
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return nil, fail(fmt.Sprintf("image versions %s", kind), err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fail(fmt.Sprintf("image versions %s", kind), err)
	}
	return out, nil
}
