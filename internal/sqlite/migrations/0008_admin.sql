-- The admin dashboard (package admin): its operators, their sessions and
-- the audit log of what they did; and an account an operator disabled.
-- Times are Unix milliseconds; 0 stands for "not set".

-- An operator disables a developer's account: its live keys are
-- suspended and remember it (suspended_by_account), so enabling the
-- account resumes those keys and no other.
ALTER TABLE accounts ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN suspended_by_account INTEGER NOT NULL DEFAULT 0;

-- One operator: an argon2id password hash (PHC string), an optional TOTP
-- secret, and the SHA-256 hashes of its unused recovery codes (a JSON
-- array).
CREATE TABLE admin_users (
    id              INTEGER PRIMARY KEY,
    email           TEXT    NOT NULL UNIQUE,
    password_hash   TEXT    NOT NULL,
    totp_secret     TEXT    NOT NULL DEFAULT '',
    recovery_hashes TEXT    NOT NULL DEFAULT '[]',
    disabled        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- A signed-in admin browser: hash is the SHA-256 of its cookie's value.
CREATE TABLE admin_sessions (
    hash       TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES admin_users (id),
    ip         TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX admin_sessions_user ON admin_sessions (user_id);
CREATE INDEX admin_sessions_last_seen ON admin_sessions (last_seen);
CREATE INDEX admin_sessions_created_at ON admin_sessions (created_at);

-- Every admin action, appended and never changed: the triggers refuse an
-- UPDATE or DELETE from anywhere, the service or an operator's own SQL.
-- AUTOINCREMENT: an id is never given twice.
CREATE TABLE audit_log (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     INTEGER NOT NULL,
    actor  TEXT    NOT NULL,
    ip     TEXT    NOT NULL DEFAULT '',
    action TEXT    NOT NULL,
    target TEXT    NOT NULL DEFAULT '',
    reason TEXT    NOT NULL DEFAULT '',
    detail TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_target ON audit_log (target, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
