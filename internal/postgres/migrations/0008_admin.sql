-- The admin dashboard (package admin): its operators, their sessions and
-- the audit log of what they did; and an account an operator disabled.
-- Every replica reads the same rows.

-- An operator disables a developer's account: its live keys are
-- suspended and remember it (suspended_by_account), so enabling the
-- account resumes those keys and no other. Changing a key fires the
-- table's trigger, so replicas hear of it at once.
ALTER TABLE accounts ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE api_keys ADD COLUMN suspended_by_account BOOLEAN NOT NULL DEFAULT false;

-- One operator: an argon2id password hash (PHC string), an optional TOTP
-- secret, and the SHA-256 hashes of its unused recovery codes.
CREATE TABLE admin_users (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email           TEXT        NOT NULL UNIQUE,
    password_hash   TEXT        NOT NULL,
    totp_secret     TEXT        NOT NULL DEFAULT '',
    recovery_hashes TEXT[]      NOT NULL DEFAULT '{}',
    disabled        BOOLEAN     NOT NULL DEFAULT false,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

-- A signed-in admin browser: hash is the SHA-256 of its cookie's value.
CREATE TABLE admin_sessions (
    hash       TEXT        PRIMARY KEY,
    user_id    BIGINT      NOT NULL REFERENCES admin_users (id),
    ip         TEXT        NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    last_seen  TIMESTAMPTZ NOT NULL
);
CREATE INDEX admin_sessions_user ON admin_sessions (user_id);
CREATE INDEX admin_sessions_last_seen ON admin_sessions (last_seen);
CREATE INDEX admin_sessions_created_at ON admin_sessions (created_at);

-- Every admin action, appended and never changed: the triggers refuse an
-- UPDATE, DELETE or TRUNCATE from anywhere, the service or an operator's
-- own SQL (short of dropping the triggers).
CREATE TABLE audit_log (
    id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at     TIMESTAMPTZ NOT NULL,
    actor  TEXT        NOT NULL,
    ip     TEXT        NOT NULL DEFAULT '',
    action TEXT        NOT NULL,
    target TEXT        NOT NULL DEFAULT '',
    reason TEXT        NOT NULL DEFAULT '',
    detail TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_target ON audit_log (target, id);

CREATE FUNCTION fragrance_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION fragrance_audit_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION fragrance_audit_append_only();
