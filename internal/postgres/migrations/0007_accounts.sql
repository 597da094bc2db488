-- The developer portal (package account): accounts, their single-use
-- sign-in links, their browser sessions and their requests for a higher
-- tier. Secrets are never stored, only their SHA-256 (account.Hash). A
-- NULL time stands for "not set".

-- A key belongs to an account (0: an operator made it), and may stop
-- working at expires_at (a replaced key's grace period). Changing either
-- fires the table's trigger, so replicas hear of it at once.
ALTER TABLE api_keys ADD COLUMN account_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
CREATE INDEX api_keys_account ON api_keys (account_id) WHERE account_id <> 0;

-- One developer. A deleted account keeps its row (its keys' usage stays,
-- anonymous) with its email erased; only live accounts hold an email, once.
CREATE TABLE accounts (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email      TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    deleted_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX accounts_live_email ON accounts (email) WHERE deleted_at IS NULL;

-- A sign-in link works once (used_at set) until expires_at; the account
-- of its email is made on first use, in the transaction that uses it.
CREATE TABLE sign_in_links (
    hash       TEXT        PRIMARY KEY,
    email      TEXT        NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);
CREATE INDEX sign_in_links_email ON sign_in_links (email);
CREATE INDEX sign_in_links_expires_at ON sign_in_links (expires_at);

-- A signed-in browser: hash is the SHA-256 of its cookie's value. Every
-- replica reads the same rows, so a browser stays signed in whichever
-- replica answers.
CREATE TABLE sessions (
    hash       TEXT        PRIMARY KEY,
    account_id BIGINT      NOT NULL REFERENCES accounts (id),
    created_at TIMESTAMPTZ NOT NULL,
    last_seen  TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_last_seen ON sessions (last_seen);
CREATE INDEX sessions_created_at ON sessions (created_at);

-- A request for a higher tier for one key, queued for the operator.
CREATE TABLE tier_requests (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT      NOT NULL REFERENCES accounts (id),
    key_prefix TEXT        NOT NULL,
    tier       TEXT        NOT NULL,
    use_case   TEXT        NOT NULL,
    volume     TEXT        NOT NULL DEFAULT '',
    state      TEXT        NOT NULL CHECK (state IN ('pending', 'approved', 'declined')),
    note       TEXT        NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    decided_at TIMESTAMPTZ
);
CREATE INDEX tier_requests_account ON tier_requests (account_id);
CREATE INDEX tier_requests_pending ON tier_requests (id) WHERE state = 'pending';
