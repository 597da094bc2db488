-- Background-removal jobs of the image host: one row per perfume (keyed by
-- its numeric id, the one used in image URLs). A claim sets state
-- 'processing' with a lease; a worker that dies leaves the lease to run out
-- and the job is claimed again, by any replica.
CREATE TABLE image_jobs (
    id          BIGINT      PRIMARY KEY,
    state       TEXT        NOT NULL CHECK (state IN ('pending', 'processing', 'done', 'failed')),
    reason      TEXT        NOT NULL DEFAULT '',
    attempts    INTEGER     NOT NULL DEFAULT 0,
    lease_until TIMESTAMPTZ,
    queued_at   TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- Claims look for the oldest pending (or lapsed) job.
CREATE INDEX image_jobs_state ON image_jobs (state, queued_at, id);

-- Image bytes, so that every replica serves the same images without a
-- shared filesystem. Blobs are small (tens of KB; sources a few hundred).
CREATE TABLE image_blobs (
    kind       TEXT        NOT NULL CHECK (kind IN ('source', 'photo', 'nobg')),
    id         BIGINT      NOT NULL,
    data       BYTEA       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, id)
);

-- The images are JPEG and WebP already: compressing them again is wasted work.
ALTER TABLE image_blobs ALTER COLUMN data SET STORAGE EXTERNAL;
