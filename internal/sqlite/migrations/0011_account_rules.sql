-- The rules that keep the portal's accounts and keys within what the
-- operator set, and the dashboard's second factor used once. Times are
-- Unix milliseconds; 0 stands for "not set".

-- One account per address however its local part's case is spelled:
-- email_key is the address as account.FoldEmail spells it (lower() folds
-- the ASCII letters, as FoldEmail does). Accounts that already share a
-- folded address are kept apart: the older keeps duplicate_of 0, each
-- newer names it, and only accounts with duplicate_of 0 must be unique.
ALTER TABLE accounts ADD COLUMN email_key TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN duplicate_of INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET email_key = lower(email) WHERE deleted_at = 0;
UPDATE accounts SET duplicate_of = (
        SELECT MIN(o.id) FROM accounts o WHERE o.email_key = accounts.email_key AND o.deleted_at = 0)
    WHERE deleted_at = 0 AND id <> (
        SELECT MIN(o.id) FROM accounts o WHERE o.email_key = accounts.email_key AND o.deleted_at = 0);
DROP INDEX accounts_live_email;
CREATE UNIQUE INDEX accounts_live_email_key ON accounts (email_key) WHERE deleted_at = 0 AND duplicate_of = 0;
CREATE INDEX accounts_email_key ON accounts (email_key) WHERE deleted_at = 0;

-- Accounts of one address are disabled together: one found disabled
-- disables the others (their active keys suspended, their sessions ended).
UPDATE accounts SET disabled = 1
    WHERE deleted_at = 0 AND disabled = 0
      AND email_key IN (SELECT email_key FROM accounts WHERE deleted_at = 0 AND disabled = 1);
UPDATE api_keys SET state = 'suspended', suspended_by_account = 1,
        updated_at = MAX(updated_at, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    WHERE state = 'active' AND account_id IN (SELECT id FROM accounts WHERE deleted_at = 0 AND disabled = 1);
DELETE FROM sessions WHERE account_id IN (SELECT id FROM accounts WHERE disabled = 1);

-- An account holding a key an operator suspended may not make or roll
-- keys (held_since), even once it revokes that key; the accounts holding
-- one now are held from now on.
ALTER TABLE accounts ADD COLUMN held_since INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET held_since = CAST(unixepoch('subsec') * 1000 AS INTEGER)
    WHERE id IN (SELECT account_id FROM api_keys
                 WHERE account_id <> 0 AND state = 'suspended' AND suspended_by_account = 0);

-- A rolled key's successor names it (replaces): a key whose predecessor
-- still works cannot be rolled. The keys an account made in the last hour
-- are counted by account and creation time.
ALTER TABLE api_keys ADD COLUMN replaces TEXT NOT NULL DEFAULT '';
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_at) WHERE account_id <> 0;

-- The last second-factor step an admin used: a code of it, or of an
-- earlier step, does not sign in again.
ALTER TABLE admin_users ADD COLUMN totp_step INTEGER NOT NULL DEFAULT 0;
