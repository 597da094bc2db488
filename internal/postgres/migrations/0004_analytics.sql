-- Request latency per endpoint and hour, as a histogram in the fixed buckets
-- of usage.LatencyBucket (0..15), so the histograms of every replica add up.
-- Kept as long as the hourly request counts (PruneHourlyUsage deletes both).
-- The key leads with hour for the reads and the prune, which both go by
-- hour. Text compares byte by byte (COLLATE "C"), as in the SQLite backend,
-- whatever the database's collation.
CREATE TABLE latency_hourly (
    hour     TIMESTAMPTZ NOT NULL,
    endpoint TEXT COLLATE "C" NOT NULL,
    bucket   SMALLINT    NOT NULL CHECK (bucket BETWEEN 0 AND 15),
    count    BIGINT      NOT NULL,
    PRIMARY KEY (hour, endpoint, bucket)
);

-- Perfume views per UTC day and perfume (numeric id), by the kind of answer
-- that showed the perfume (usage.ViewKind): detail, similar, dupes (the
-- columns end in _views, as SIMILAR is a reserved word). Kept.
CREATE TABLE views_daily (
    day           TIMESTAMPTZ NOT NULL,
    perfume_id    BIGINT      NOT NULL,
    detail_views  BIGINT      NOT NULL DEFAULT 0,
    similar_views BIGINT      NOT NULL DEFAULT 0,
    dupes_views   BIGINT      NOT NULL DEFAULT 0,
    PRIMARY KEY (day, perfume_id)
);

-- Searches that found nothing, per UTC day and normalised query. Kept.
CREATE TABLE empty_searches_daily (
    day   TIMESTAMPTZ NOT NULL,
    query TEXT COLLATE "C" NOT NULL,
    count BIGINT      NOT NULL,
    PRIMARY KEY (day, query)
);
