-- Background-removal jobs of the image host: one row per perfume (keyed by
-- its numeric id, the one used in image URLs). A claim sets state
-- 'processing' with a lease; a worker that dies leaves the lease to run out
-- and the job is claimed again. Times are Unix milliseconds.
CREATE TABLE image_jobs (
    id          INTEGER PRIMARY KEY,
    state       TEXT    NOT NULL CHECK (state IN ('pending', 'processing', 'done', 'failed')),
    reason      TEXT    NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL DEFAULT 0,
    queued_at   INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- Claims look for the oldest pending (or lapsed) job.
CREATE INDEX image_jobs_state ON image_jobs (state, queued_at, id);
