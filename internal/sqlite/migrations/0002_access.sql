-- API keys: only the SHA-256 hash of a key and its short display prefix are
-- stored, never the key. per_minute/per_day override the tier's limits when
-- positive. origins is a JSON array of allowed browser origins (empty: any).
-- Times are Unix milliseconds; updated_at lets replicas fetch changed keys.
CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    prefix     TEXT    NOT NULL UNIQUE,
    hash       TEXT    NOT NULL UNIQUE,
    name       TEXT    NOT NULL DEFAULT '',
    email      TEXT    NOT NULL DEFAULT '',
    tier       TEXT    NOT NULL,
    state      TEXT    NOT NULL CHECK (state IN ('active', 'suspended', 'revoked')),
    per_minute INTEGER NOT NULL DEFAULT 0,
    per_day    INTEGER NOT NULL DEFAULT 0,
    origins    TEXT    NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX api_keys_updated_at ON api_keys (updated_at);

-- Request counts per key, endpoint and status class ("2xx"), by hour (kept
-- for a few days, see access.Config.HourlyRetention) and by UTC day (kept).
-- hour and day are the Unix seconds of their start.
CREATE TABLE usage_hourly (
    key_prefix   TEXT    NOT NULL,
    endpoint     TEXT    NOT NULL,
    status_class TEXT    NOT NULL,
    hour         INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (key_prefix, hour, endpoint, status_class)
) WITHOUT ROWID;
CREATE INDEX usage_hourly_hour ON usage_hourly (hour);

CREATE TABLE usage_daily (
    key_prefix   TEXT    NOT NULL,
    endpoint     TEXT    NOT NULL,
    status_class TEXT    NOT NULL,
    day          INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (key_prefix, day, endpoint, status_class)
) WITHOUT ROWID;
CREATE INDEX usage_daily_day ON usage_daily (day);

-- Buy-link clicks per perfume (numeric id) and UTC day.
CREATE TABLE clicks_daily (
    perfume_id INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (perfume_id, day)
) WITHOUT ROWID;

-- Abuse signals for the admin dashboard (see access.Signal).
CREATE TABLE abuse_signals (
    id             INTEGER PRIMARY KEY,
    kind           TEXT    NOT NULL,
    key_prefix     TEXT    NOT NULL DEFAULT '',
    client_ip      TEXT    NOT NULL DEFAULT '',
    count          INTEGER NOT NULL,
    window_seconds INTEGER NOT NULL,
    detail         TEXT    NOT NULL DEFAULT '',
    at             INTEGER NOT NULL
);
CREATE INDEX abuse_signals_at ON abuse_signals (at);
