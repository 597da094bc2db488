-- API keys: only the SHA-256 hash of a key and its short display prefix are
-- stored, never the key. per_minute/per_day override the tier's limits when
-- positive; origins are the allowed browser origins (empty: any).
-- updated_at lets replicas fetch changed keys (access.KeyStore.KeysChangedSince).
CREATE TABLE api_keys (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    prefix     TEXT        NOT NULL UNIQUE,
    hash       TEXT        NOT NULL UNIQUE,
    name       TEXT        NOT NULL DEFAULT '',
    email      TEXT        NOT NULL DEFAULT '',
    tier       TEXT        NOT NULL,
    state      TEXT        NOT NULL CHECK (state IN ('active', 'suspended', 'revoked')),
    per_minute BIGINT      NOT NULL DEFAULT 0,
    per_day    BIGINT      NOT NULL DEFAULT 0,
    origins    TEXT[]      NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_updated_at ON api_keys (updated_at);

-- Every change of a key, however it is made (the service, `fragrance keys`,
-- or an operator's own SQL), tells the replicas listening on fragrance_keys
-- which key changed, when the change commits, so a revocation takes effect
-- everywhere at once instead of at the next poll.
CREATE FUNCTION fragrance_notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('fragrance_keys', NEW.prefix);
    RETURN NULL;
END;
$$;
CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION fragrance_notify_key_change();

-- Request counts per key, endpoint and status class ("2xx"), by hour (kept
-- for a few days, see access.Config.HourlyRetention) and by UTC day (kept).
-- hour and day are the instants they start. Replicas add to the same rows
-- with INSERT ... ON CONFLICT DO UPDATE SET count = count + EXCLUDED.count.
CREATE TABLE usage_hourly (
    key_prefix   TEXT        NOT NULL,
    endpoint     TEXT        NOT NULL,
    status_class TEXT        NOT NULL,
    hour         TIMESTAMPTZ NOT NULL,
    count        BIGINT      NOT NULL,
    PRIMARY KEY (key_prefix, hour, endpoint, status_class)
);
CREATE INDEX usage_hourly_hour ON usage_hourly (hour);

CREATE TABLE usage_daily (
    key_prefix   TEXT        NOT NULL,
    endpoint     TEXT        NOT NULL,
    status_class TEXT        NOT NULL,
    day          TIMESTAMPTZ NOT NULL,
    count        BIGINT      NOT NULL,
    PRIMARY KEY (key_prefix, day, endpoint, status_class)
);
CREATE INDEX usage_daily_day ON usage_daily (day);

-- Buy-link clicks per perfume (numeric id) and UTC day.
CREATE TABLE clicks_daily (
    perfume_id BIGINT      NOT NULL,
    day        TIMESTAMPTZ NOT NULL,
    count      BIGINT      NOT NULL,
    PRIMARY KEY (perfume_id, day)
);
CREATE INDEX clicks_daily_day ON clicks_daily (day);

-- Abuse signals for the admin dashboard (see access.Signal).
CREATE TABLE abuse_signals (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind           TEXT        NOT NULL,
    key_prefix     TEXT        NOT NULL DEFAULT '',
    client_ip      TEXT        NOT NULL DEFAULT '',
    count          BIGINT      NOT NULL,
    window_seconds BIGINT      NOT NULL,
    detail         TEXT        NOT NULL DEFAULT '',
    at             TIMESTAMPTZ NOT NULL
);
CREATE INDEX abuse_signals_at ON abuse_signals (at);
