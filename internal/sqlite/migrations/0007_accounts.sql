-- The developer portal (package account): accounts, their single-use
-- sign-in links, their browser sessions and their requests for a higher
-- tier. Secrets are never stored, only their SHA-256 (account.Hash). Times
-- are Unix milliseconds; 0 stands for "not set".

-- A key belongs to an account (0: an operator made it), and may stop
-- working at expires_at (a replaced key's grace period).
ALTER TABLE api_keys ADD COLUMN account_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX api_keys_account ON api_keys (account_id) WHERE account_id <> 0;

-- One developer. A deleted account keeps its row (its keys' usage stays,
-- anonymous) with its email erased; only live accounts hold an email, once.
CREATE TABLE accounts (
    id         INTEGER PRIMARY KEY,
    email      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX accounts_live_email ON accounts (email) WHERE deleted_at = 0;

-- A sign-in link works once (used_at set) until expires_at; the account
-- of its email is made on first use.
CREATE TABLE sign_in_links (
    hash       TEXT    PRIMARY KEY,
    email      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX sign_in_links_email ON sign_in_links (email);
CREATE INDEX sign_in_links_expires_at ON sign_in_links (expires_at);

-- A signed-in browser: hash is the SHA-256 of its cookie's value.
CREATE TABLE sessions (
    hash       TEXT    PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    created_at INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_last_seen ON sessions (last_seen);
CREATE INDEX sessions_created_at ON sessions (created_at);

-- A request for a higher tier for one key, queued for the operator.
CREATE TABLE tier_requests (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    key_prefix TEXT    NOT NULL,
    tier       TEXT    NOT NULL,
    use_case   TEXT    NOT NULL,
    volume     TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'declined')),
    note       TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    decided_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tier_requests_account ON tier_requests (account_id);
CREATE INDEX tier_requests_pending ON tier_requests (id) WHERE state = 'pending';
