package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// PreFoldAccount is an account as the stores kept it before addresses were
// folded (account.FoldEmail), for the migration that folds them: a backend
// stores it as its older schema had it, then migrates.
type PreFoldAccount struct {
	// Email is the address as it was stored; Disabled, whether an operator
	// had disabled the account.
	Email    string
	Disabled bool
	// Key is the state of the one key the account holds (its prefix
	// PreFoldKey of the account's index): "" none, "active", "suspended"
	// (by an operator) or "disabled" (suspended by the account's disabling).
	Key string
	// Session: the account holds a session, whose hash is PreFoldSession.
	Session bool
}

// PreFoldKey is the prefix of the key of the i-th (from 0) PreFoldAccount.
func PreFoldKey(i int) string { return "fds_old0000" + string(rune('a'+i)) }

// PreFoldSession is the hash of the session of the i-th (from 0)
// PreFoldAccount.
func PreFoldSession(i int) string { return "session-of-" + string(rune('a'+i)) }

// preFold are the accounts RunPreFoldMigration gives: three spellings of
// one address (the first disabled), an account holding a key an operator
// suspended, and one that nothing concerns.
var preFold = []PreFoldAccount{
	{Email: "bob@example.com", Disabled: true, Key: "disabled", Session: true},
	{Email: "Bob@example.com", Key: "active", Session: true},
	{Email: "BOB@example.com", Session: true},
	{Email: "alice@example.com", Key: "suspended"},
	{Email: "carol@example.com", Key: "active", Session: true},
}

// RunPreFoldMigration runs the migration that folds addresses against a
// store made by open: the accounts given, their i-th with ID i+1, made an
// hour apart up to now (the store's clock), and sessions made an hour
// before now, stored as a release before it would have, then migrated.
// Accounts that shared a folded address are found and kept apart, one
// found disabled disables the others, and from then on disabling or
// enabling one does all; an account holding a key an operator suspended is
// held.
func RunPreFoldMigration(t *testing.T, open func(t *testing.T, now func() time.Time, accounts []PreFoldAccount) AccountStore) {
	c := suiteClock()
	s := open(t, c.Now, preFold)
	ctx := context.Background()
	dups, err := s.DuplicateAccounts(ctx)
	if err != nil || len(dups) != 3 || dups[0].ID != 1 || dups[1].ID != 2 || dups[2].ID != 3 ||
		dups[0].DuplicateOf != 0 || dups[1].DuplicateOf != 1 || dups[2].DuplicateOf != 1 {
		t.Fatalf("DuplicateAccounts = %+v, %v; want accounts 1, 2 and 3, the newer two naming the oldest", dups, err)
	}
	for _, d := range dups {
		if !d.Disabled || d.Email != preFold[d.ID-1].Email {
			t.Fatalf("a duplicate of a disabled account = %+v; want it disabled, its address as it was", d)
		}
	}
	wantKey := func(i int, state apikey.State) {
		t.Helper()
		if k, err := s.KeyByPrefix(ctx, PreFoldKey(i)); err != nil || k.State != state {
			t.Fatalf("key of account %d = %s, %v; want %s", i+1, k.State, err, state)
		}
	}
	wantKey(1, apikey.Suspended)
	for i, live := range []bool{false, false, false, false, true} {
		_, _, err := s.TouchSession(ctx, PreFoldSession(i), c.Now())
		if live != (err == nil) || !live && preFold[i].Session && !errors.Is(err, account.ErrNoSession) {
			t.Fatalf("the session of account %d: %v, want it live: %v", i+1, err, live)
		}
	}
	if a, _ := s.AccountByID(ctx, 4); !a.Held() {
		t.Fatalf("an account holding a key an operator suspended = %+v; want it held", a)
	}
	if a, _ := s.AccountByID(ctx, 5); a.Held() || a.Disabled || a.DuplicateOf != 0 {
		t.Fatalf("an account nothing concerns = %+v", a)
	}
	for email, id := range map[string]int64{"Bob@example.com": 2, "bob@example.com": 1, "bOB@EXAMPLE.com": 1, "BOB@example.com": 3} {
		if a, err := s.AccountByEmail(ctx, email); err != nil || a.ID != id {
			t.Fatalf("AccountByEmail(%q) = %+v, %v; want account %d", email, a, err, id)
		}
	}
	// Enabling one enables all (and resumes the keys disabling suspended);
	// disabling one disables all.
	if _, err := s.SetAccountDisabled(ctx, 3, false); err != nil {
		t.Fatal(err)
	}
	wantDisabled(t, s, false, 1, 2, 3)
	wantKey(0, apikey.Active)
	wantKey(1, apikey.Active)
	if _, err := s.SetAccountDisabled(ctx, 2, true); err != nil {
		t.Fatal(err)
	}
	wantDisabled(t, s, true, 1, 2, 3)
	wantKey(0, apikey.Suspended)
	if a, _ := s.AccountByID(ctx, 5); a.Disabled {
		t.Fatal("disabling a duplicate disabled another address's account")
	}
	// A sign-in, however spelled, makes no new account; once the oldest is
	// deleted the next oldest answers.
	if a := signIn(t, s, c, "boB@example.com"); a.ID != 1 {
		t.Fatalf("a sign-in of the address = %+v, want account 1", a)
	}
	if err := s.DeleteAccount(ctx, 1, c.Now()); err != nil {
		t.Fatal(err)
	}
	if a := signIn(t, s, c, "boB@example.com"); a.ID != 2 {
		t.Fatalf("a sign-in of the address once the oldest is deleted = %+v, want account 2", a)
	}
	if all, err := s.ListAccounts(ctx); err != nil || len(all) != len(preFold) {
		t.Fatalf("ListAccounts = %d accounts, %v; want no new one", len(all), err)
	}
	if _, err := s.AccountByID(ctx, 99); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("AccountByID of nothing: %v", err)
	}
}

func wantDisabled(t *testing.T, s AccountStore, disabled bool, ids ...int64) {
	t.Helper()
	for _, id := range ids {
		if a, err := s.AccountByID(context.Background(), id); err != nil || a.Disabled != disabled {
			t.Fatalf("account %d = %+v, %v; want disabled %v", id, a, err, disabled)
		}
	}
}
