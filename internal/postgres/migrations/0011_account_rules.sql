-- The rules that keep the portal's accounts and keys within what the
-- operator set, and the dashboard's second factor used once. A NULL time
-- stands for "not set".

-- One account per address however its local part's case is spelled:
-- email_key is the address as account.FoldEmail spells it (translate()
-- folds the ASCII letters only, as FoldEmail does, whatever the
-- database's locale). Accounts that already share a folded address are
-- kept apart: the older keeps duplicate_of 0, each newer names it, and
-- only accounts with duplicate_of 0 must be unique.
ALTER TABLE accounts ADD COLUMN email_key TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN duplicate_of BIGINT NOT NULL DEFAULT 0;
UPDATE accounts SET email_key = translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
    WHERE deleted_at IS NULL;
UPDATE accounts a SET duplicate_of = o.first
    FROM (SELECT email_key, MIN(id) AS first FROM accounts WHERE deleted_at IS NULL GROUP BY email_key) o
    WHERE a.deleted_at IS NULL AND a.email_key = o.email_key AND a.id <> o.first;
DROP INDEX accounts_live_email;
CREATE UNIQUE INDEX accounts_live_email_key ON accounts (email_key) WHERE deleted_at IS NULL AND duplicate_of = 0;
CREATE INDEX accounts_email_key ON accounts (email_key) WHERE deleted_at IS NULL;

-- Accounts of one address are disabled together: one found disabled
-- disables the others (their active keys suspended, which the key table's
-- trigger tells the replicas; their sessions ended).
UPDATE accounts SET disabled = true
    WHERE deleted_at IS NULL AND NOT disabled
      AND email_key IN (SELECT email_key FROM accounts WHERE deleted_at IS NULL AND disabled);
UPDATE api_keys SET state = 'suspended', suspended_by_account = true,
        updated_at = GREATEST(updated_at, date_trunc('milliseconds', now()))
    WHERE state = 'active' AND account_id IN (SELECT id FROM accounts WHERE deleted_at IS NULL AND disabled);
DELETE FROM sessions WHERE account_id IN (SELECT id FROM accounts WHERE disabled);

-- An account holding a key an operator suspended may not make or roll
-- keys (held_since), even once it revokes that key; the accounts holding
-- one now are held from now on.
ALTER TABLE accounts ADD COLUMN held_since TIMESTAMPTZ;
UPDATE accounts SET held_since = date_trunc('milliseconds', now())
    WHERE id IN (SELECT account_id FROM api_keys
                 WHERE account_id <> 0 AND state = 'suspended' AND NOT suspended_by_account);

-- A rolled key's successor names it (replaces): a key whose predecessor
-- still works cannot be rolled. The keys an account made in the last hour
-- are counted by account and creation time.
ALTER TABLE api_keys ADD COLUMN replaces TEXT NOT NULL DEFAULT '';
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_at) WHERE account_id <> 0;

-- The last second-factor step an admin used: a code of it, or of an
-- earlier step, does not sign in again.
ALTER TABLE admin_users ADD COLUMN totp_step BIGINT NOT NULL DEFAULT 0;
