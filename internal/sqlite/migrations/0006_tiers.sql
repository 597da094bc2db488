-- The tiers' default limits (apikey.TierStore): the store, not a flag, is
-- the truth, so every replica and command reads the same numbers. A new
-- database has no rows; `fragrance serve` seeds them from --tier-limits (or
-- the contract's values) on its first start, and `fragrance tiers set`
-- changes them. Running servers read them again every --tier-refresh.
-- updated_at is Unix milliseconds.
CREATE TABLE tier_limits (
    tier       TEXT    PRIMARY KEY,
    per_minute INTEGER NOT NULL CHECK (per_minute > 0),
    per_day    INTEGER NOT NULL CHECK (per_day > 0),
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
