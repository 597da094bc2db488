package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

var _ imgstore.Jobs = (*DB)(nil)

// EnqueueJobs makes the background-removal job of each id pending (see
// imgstore.Jobs), in one transaction.
func (d *DB) EnqueueJobs(ctx context.Context, ids []int64) error {
	_, err := d.insertJobs(ctx, "enqueue image jobs", `DO UPDATE SET state = 'pending', reason = '', attempts = 0,
		lease_until = 0, queued_at = excluded.queued_at, updated_at = excluded.updated_at`, ids)
	return err
}

// QueueMissingJobs creates a pending job for each id without one (see
// imgstore.Jobs), in one transaction.
func (d *DB) QueueMissingJobs(ctx context.Context, ids []int64) (int, error) {
	return d.insertJobs(ctx, "queue missing image jobs", `DO NOTHING`, ids)
}

// RetryFailedJobs makes pending the failed jobs among ids whose reason ends
// with reasonSuffix (see imgstore.Jobs), in one transaction.
func (d *DB) RetryFailedJobs(ctx context.Context, ids []int64, reasonSuffix string) (int, error) {
	if len(ids) == 0 || reasonSuffix == "" {
		return 0, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("retry failed image jobs: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE image_jobs SET state = 'pending', reason = '', attempts = 0,
			lease_until = 0, queued_at = ?, updated_at = ?
		WHERE id = ? AND state = 'failed' AND substr(reason, -length(?)) = ?`)
	if err != nil {
		return 0, fmt.Errorf("retry failed image jobs: %w", err)
	}
	defer st.Close()
	now := d.now().UnixMilli()
	changed := 0
	for _, id := range ids {
		res, err := st.ExecContext(ctx, now, now, id, reasonSuffix, reasonSuffix)
		if err != nil {
			return 0, fmt.Errorf("retry failed image job %d: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("retry failed image job %d: %w", id, err)
		}
		changed += int(n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("retry failed image jobs: commit: %w", err)
	}
	return changed, nil
}

// insertJobs inserts a pending job for each id in one transaction, doing
// onConflict where one exists, and returns how many rows changed.
func (d *DB) insertJobs(ctx context.Context, what, onConflict string, ids []int64) (int, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO image_jobs (id, state, reason, attempts, lease_until, queued_at, updated_at)
		VALUES (?, 'pending', '', 0, 0, ?, ?) ON CONFLICT (id) `+onConflict)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	defer st.Close()
	now := d.now().UnixMilli()
	changed := 0
	for _, id := range ids {
		res, err := st.ExecContext(ctx, id, now, now)
		if err != nil {
			return 0, fmt.Errorf("%s: job %d: %w", what, id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("%s: job %d: %w", what, id, err)
		}
		changed += int(n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("%s: commit: %w", what, err)
	}
	return changed, nil
}

// ClaimJob claims the oldest pending or lapsed job (see imgstore.Jobs). The
// transaction starts IMMEDIATE (the database's _txlock), so two workers
// never claim the same job.
func (d *DB) ClaimJob(ctx context.Context, lease time.Duration, maxAttempts int) (imgstore.Job, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job: %w", err)
	}
	defer tx.Rollback()
	now := d.now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `UPDATE image_jobs SET state = 'failed', lease_until = 0, updated_at = ?,
			reason = 'interrupted ' || attempts || ' times (worker stopped or crashed mid-job)'
		WHERE state = 'processing' AND lease_until <= ? AND attempts >= ?`, now, now, maxAttempts); err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job: give up lapsed: %w", err)
	}
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM image_jobs
		WHERE state = 'pending' OR (state = 'processing' AND lease_until <= ?)
		ORDER BY queued_at, id LIMIT 1`, now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		// Commit anyway: lapsed jobs may just have been marked failed.
		if err := tx.Commit(); err != nil {
			return imgstore.Job{}, fmt.Errorf("claim image job: commit: %w", err)
		}
		return imgstore.Job{}, fmt.Errorf("claim image job: none waiting: %w", catalog.ErrNotFound)
	}
	if err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE image_jobs SET state = 'processing', reason = '', attempts = attempts + 1,
		lease_until = ?, updated_at = ? WHERE id = ?`, now+lease.Milliseconds(), now, id); err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job %d: %w", id, err)
	}
	job, err := scanJob(tx.QueryRowContext(ctx, jobSelect+` WHERE id = ?`, id))
	if err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return imgstore.Job{}, fmt.Errorf("claim image job %d: commit: %w", id, err)
	}
	return job, nil
}

// CompleteJob ends one claim of a job (see imgstore.Jobs).
func (d *DB) CompleteJob(ctx context.Context, id int64, attempt int, failure string) error {
	state := imgstore.Done
	if failure != "" {
		state = imgstore.Failed
	}
	res, err := d.db.ExecContext(ctx, `UPDATE image_jobs SET state = ?, reason = ?, lease_until = 0, updated_at = ?
		WHERE id = ? AND state = 'processing' AND attempts = ?`, string(state), failure, d.now().UnixMilli(), id, attempt)
	if err != nil {
		return fmt.Errorf("complete image job %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("complete image job %d: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("complete image job %d attempt %d: %w", id, attempt, imgstore.ErrStale)
	}
	return nil
}

const jobSelect = `SELECT id, state, reason, attempts, updated_at FROM image_jobs`

// scanJob reads one row of jobSelect.
func scanJob(row *sql.Row) (imgstore.Job, error) {
	var j imgstore.Job
	var state string
	var updated int64
	if err := row.Scan(&j.ID, &state, &j.Reason, &j.Attempts, &updated); err != nil {
		return imgstore.Job{}, err
	}
	j.State = imgstore.State(state)
	j.UpdatedAt = time.UnixMilli(updated).UTC()
	return j, nil
}

// Job returns the job of one perfume.
func (d *DB) Job(ctx context.Context, id int64) (imgstore.Job, error) {
	j, err := scanJob(d.db.QueryRowContext(ctx, jobSelect+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return imgstore.Job{}, fmt.Errorf("image job %d: %w", id, catalog.ErrNotFound)
	}
	if err != nil {
		return imgstore.Job{}, fmt.Errorf("image job %d: %w", id, err)
	}
	return j, nil
}

// DoneJobIDs returns the ids of done jobs in ascending order.
func (d *DB) DoneJobIDs(ctx context.Context) ([]int64, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM image_jobs WHERE state = 'done' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("done image jobs: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("done image jobs: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("done image jobs: %w", err)
	}
	return ids, nil
}

// JobCounts returns how many jobs are in each state.
func (d *DB) JobCounts(ctx context.Context) (map[imgstore.State]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM image_jobs GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("count image jobs: %w", err)
	}
	defer rows.Close()
	out := make(map[imgstore.State]int)
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count image jobs: %w", err)
		}
		out[imgstore.State(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count image jobs: %w", err)
	}
	return out, nil
}

var _ imgstore.Versions = (*DB)(nil)

// SetImageVersion records the version of one image (see imgstore.Versions).
func (d *DB) SetImageVersion(ctx context.Context, kind imgstore.Kind, id int64, version string) error {
	if err := checkVersion(kind, version); err != nil {
		return err
	}
	if _, err := d.db.ExecContext(ctx, `INSERT INTO image_versions (kind, id, version, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
		string(kind), id, version, d.now().UnixMilli()); err != nil {
		return fmt.Errorf("set image version %s %d: %w", kind, id, err)
	}
	return nil
}

// checkVersion refuses an unknown kind and an empty or overlong version.
func checkVersion(kind imgstore.Kind, version string) error {
	if !kind.Valid() {
		return fmt.Errorf("set image version: unknown kind %q: %w", kind, catalog.ErrInvalid)
	}
	if version == "" || len(version) > imgstore.MaxVersionLen {
		return fmt.Errorf("set image version: version of %d bytes (1 to %d): %w", len(version), imgstore.MaxVersionLen, catalog.ErrInvalid)
	}
	return nil
}

// ImageVersions returns the recorded versions of one kind.
func (d *DB) ImageVersions(ctx context.Context, kind imgstore.Kind) (map[int64]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, version FROM image_versions WHERE kind = ?`, string(kind))
	if err != nil {
		return nil, fmt.Errorf("image versions %s: %w", kind, err)
	}
	defer rows.Close()
	out := make(map[int64]string)
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return nil, fmt.Errorf("image versions %s: %w", kind, err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("image versions %s: %w", kind, err)
	}
	return out, nil
}
