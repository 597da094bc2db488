-- Request latency per endpoint and hour, as a histogram in the fixed buckets
-- of usage.LatencyBucket (0..15), so the histograms of every replica add up.
-- Kept as long as the hourly request counts (PruneHourlyUsage deletes both).
-- hour is the Unix seconds of its start; the key leads with it for the reads
-- and the prune, which both go by hour.
CREATE TABLE latency_hourly (
    hour     INTEGER NOT NULL,
    endpoint TEXT    NOT NULL,
    bucket   INTEGER NOT NULL CHECK (bucket BETWEEN 0 AND 15),
    count    INTEGER NOT NULL,
    PRIMARY KEY (hour, endpoint, bucket)
) WITHOUT ROWID;

-- Perfume views per UTC day and perfume (numeric id), by the kind of answer
-- that showed the perfume (usage.ViewKind): detail, similar, dupes (named
-- as in the PostgreSQL backend, where SIMILAR is a reserved word). Kept.
CREATE TABLE views_daily (
    day           INTEGER NOT NULL,
    perfume_id    INTEGER NOT NULL,
    detail_views  INTEGER NOT NULL DEFAULT 0,
    similar_views INTEGER NOT NULL DEFAULT 0,
    dupes_views   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, perfume_id)
) WITHOUT ROWID;

-- Searches that found nothing, per UTC day and normalised query. Kept.
CREATE TABLE empty_searches_daily (
    day   INTEGER NOT NULL,
    query TEXT    NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (day, query)
) WITHOUT ROWID;
