-- The tiers' default limits (apikey.TierStore): the store, not a flag, is
-- the truth, so every replica and command reads the same numbers. A new
-- database has no rows; the first `fragrance serve` seeds them from
-- --tier-limits (or the contract's values; ON CONFLICT DO NOTHING, so
-- replicas starting together agree), and `fragrance tiers set` changes
-- them. Running servers read them again every --tier-refresh.
CREATE TABLE tier_limits (
    tier       TEXT COLLATE "C" PRIMARY KEY,
    per_minute BIGINT      NOT NULL CHECK (per_minute > 0),
    per_day    BIGINT      NOT NULL CHECK (per_day > 0),
    updated_at TIMESTAMPTZ NOT NULL
);
