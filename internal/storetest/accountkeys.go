package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// The rules on the keys an account makes: the most that count, the most
// made an hour, the hold of a suspension, one key on its way out per key.

// rules are KeyRules at the clock's time.
func rules(c *testclock.Clock, maxKeys, perHour int) account.KeyRules {
	return account.KeyRules{Max: maxKeys, PerHour: perHour, Now: c.Now()}
}

// newAccountKey is a key record of the account, ready to store.
func newAccountKey(t *testing.T, a account.Account) apikey.Key {
	t.Helper()
	k := newTestKey(t, apikey.Free)
	k.AccountID, k.Email = a.ID, a.Email
	return k
}

// makeKey stores a key of the account under r, failing the test on error.
func makeKey(t *testing.T, s AccountStore, a account.Account, r account.KeyRules) apikey.Key {
	t.Helper()
	k, err := s.CreateAccountKey(context.Background(), newAccountKey(t, a), r)
	if err != nil {
		t.Fatalf("CreateAccountKey: %v", err)
	}
	return k
}

func wantRefused(t *testing.T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) || !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

// liveCount is how many of the account's keys count at the clock's time.
func liveCount(t *testing.T, s AccountStore, c *testclock.Clock, a account.Account) int {
	t.Helper()
	ks, err := s.LiveAccountKeys(context.Background(), a.ID, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if !account.Live(k, c.Now()) || k.AccountID != a.ID {
			t.Fatalf("LiveAccountKeys holds %+v", k)
		}
	}
	return len(ks)
}

func testCreateAccountKey(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	first := makeKey(t, s, a, rules(c, 3, 10))
	if first.ID == 0 || first.AccountID != a.ID || first.State != apikey.Active || !first.CreatedAt.Equal(c.Now()) {
		t.Fatalf("CreateAccountKey = %+v", first)
	}
	if got, err := s.KeyByPrefix(ctx, first.Prefix); err != nil || got.ID != first.ID {
		t.Fatalf("the key made = %+v, %v", got, err)
	}
	// A key the disabling below suspends still counts (and holds nothing).
	makeKey(t, s, a, rules(c, 3, 10))
	if _, err := s.SetAccountDisabled(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err := s.CreateAccountKey(ctx, newAccountKey(t, a), rules(c, 3, 10))
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a key of a disabled account: %v, want ErrNotFound", err)
	}
	if _, err := s.SetAccountDisabled(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	makeKey(t, s, a, rules(c, 3, 10))
	_, err = s.CreateAccountKey(ctx, newAccountKey(t, a), rules(c, 3, 10))
	wantRefused(t, err, account.ErrTooManyKeys, "a fourth key with three that count")
	// A revoked key and one past its end stop counting; a suspended one counts.
	if _, err := s.SetKeyState(ctx, first.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	last := makeKey(t, s, a, rules(c, 3, 10))
	if _, err := s.SetKeyExpiry(ctx, last.Prefix, c.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateAccountKey(ctx, newAccountKey(t, a), rules(c, 3, 10))
	wantRefused(t, err, account.ErrTooManyKeys, "a key while a rolled one still works")
	c.Add(time.Minute)
	makeKey(t, s, a, rules(c, 3, 10))
	if n := liveCount(t, s, c, a); n != 3 {
		t.Fatalf("%d keys count, want 3", n)
	}
	// Made past the hour's: refused, whatever was revoked; an hour on, allowed.
	_, err = s.CreateAccountKey(ctx, newAccountKey(t, a), rules(c, 10, 5))
	wantRefused(t, err, account.ErrKeyRate, "a sixth key in the hour")
	c.Add(time.Hour - time.Minute) // the four made at the start leave the hour
	makeKey(t, s, a, rules(c, 10, 5))
	other := signIn(t, s, c, "other@example.com")
	if err := s.DeleteAccount(ctx, other.ID, c.Now()); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateAccountKey(ctx, newAccountKey(t, other), rules(c, 10, 10))
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a key of a deleted account: %v, want ErrNotFound", err)
	}
	if _, err := s.CreateAccountKey(ctx, apikey.Key{AccountID: a.ID}, rules(c, 10, 10)); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("a key without prefix and hash: %v, want ErrInvalid", err)
	}
}

// testCreateAccountKeyConcurrent: keys made at once through two replicas
// never pass the maximum or the hour's.
func testCreateAccountKeyConcurrent(t *testing.T, a, b AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	acct := signIn(t, a, c, "dev@example.com")
	const n, rounds = 10, 4
	for round := range rounds {
		c.Add(time.Hour) // the keys of the round before leave the hour
		limit := account.KeyRules{Max: 5, PerHour: 1000, Now: c.Now()}
		if round%2 == 1 {
			limit = account.KeyRules{Max: 1000, PerHour: 5, Now: c.Now()}
		}
		errs := make([]error, n)
		keys := make([]apikey.Key, n)
		for i := range keys {
			keys[i] = newAccountKey(t, acct)
		}
		AtOnce(n, func(i int) {
			s := a
			if i%2 == 1 {
				s = b
			}
			_, errs[i] = s.CreateAccountKey(ctx, keys[i], limit)
		})
		made := 0
		for _, err := range errs {
			switch {
			case err == nil:
				made++
			case !errors.Is(err, account.ErrTooManyKeys) && !errors.Is(err, account.ErrKeyRate):
				t.Fatalf("round %d: a concurrent create: %v", round, err)
			}
		}
		if made != 5 {
			t.Fatalf("round %d (%+v): %d of %d concurrent creates made a key, want 5", round, limit, made, n)
		}
		ks, err := a.LiveAccountKeys(ctx, acct.ID, c.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			if _, err := a.SetKeyState(ctx, k.Prefix, apikey.Revoked); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func testRollAccountKey(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	r := rules(c, 3, 100)
	k1 := makeKey(t, s, a, r)
	roll := func(old string, stopAt time.Time) (apikey.Key, apikey.Key, error) {
		return s.RollAccountKey(ctx, old, newAccountKey(t, a), stopAt, rules(c, 3, 100))
	}
	grace := c.Now().Add(24 * time.Hour)
	old, k2, err := roll(k1.Prefix, grace)
	if err != nil {
		t.Fatal(err)
	}
	if !old.ExpiresAt.Equal(grace) || old.State != apikey.Active || k2.ID == 0 || k2.AccountID != a.ID || !k2.ExpiresAt.IsZero() {
		t.Fatalf("RollAccountKey = %+v, %+v; want the old key ending at %v and the new one stored", old, k2, grace)
	}
	_, _, err = roll(k1.Prefix, grace)
	wantRefused(t, err, account.ErrNotRollable, "rolling a rolled key")
	_, _, err = roll(k2.Prefix, grace)
	wantRefused(t, err, account.ErrRollPending, "rolling a key whose predecessor still works")
	_, _, err = roll(k2.Prefix, time.Time{})
	wantRefused(t, err, account.ErrRollPending, "rolling it without a grace period")
	c.Add(24 * time.Hour) // k1's grace ends: k2 may roll
	_, k3, err := roll(k2.Prefix, time.Time{})
	if err != nil {
		t.Fatalf("rolling once the predecessor ended: %v", err)
	}
	if got, _ := s.KeyByPrefix(ctx, k2.Prefix); got.State != apikey.Revoked {
		t.Fatalf("a key rolled without a grace period = %s, want revoked", got.State)
	}
	// At the maximum a roll with a grace period would pass it; one without
	// replaces the key.
	makeKey(t, s, a, rules(c, 3, 100))
	k5 := makeKey(t, s, a, rules(c, 3, 100))
	_, _, err = roll(k3.Prefix, c.Now().Add(time.Hour))
	wantRefused(t, err, account.ErrTooManyKeys, "a roll with a grace period at the maximum")
	_, k6, err := roll(k3.Prefix, time.Time{})
	if err != nil {
		t.Fatalf("a roll that revokes at the maximum: %v", err)
	}
	if n := liveCount(t, s, c, a); n != 3 {
		t.Fatalf("%d keys count, want 3", n)
	}
	if _, err := s.SetKeyState(ctx, k5.Prefix, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	_, _, err = roll(k6.Prefix, time.Time{})
	wantRefused(t, err, account.ErrKeysHeld, "a roll of a held account")
	other := signIn(t, s, c, "other@example.com")
	theirs := makeKey(t, s, other, rules(c, 3, 100))
	if _, _, err := roll(theirs.Prefix, time.Time{}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("rolling another account's key: %v, want ErrNotFound", err)
	}
	if got, _ := s.KeyByPrefix(ctx, theirs.Prefix); got.State != apikey.Active || !got.ExpiresAt.IsZero() {
		t.Fatalf("the other account's key was changed: %+v", got)
	}
	_, _, err = s.RollAccountKey(ctx, theirs.Prefix, newAccountKey(t, other), time.Time{}, account.KeyRules{Max: 3, PerHour: 1, Now: c.Now()})
	wantRefused(t, err, account.ErrKeyRate, "a roll past the hour's keys")
}

// testKeyHold: an operator's suspension of a key holds the account (no
// new keys) until the key is resumed or the hold released; revoking the
// key does not release it; a disabling's suspensions hold nothing.
func testKeyHold(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	k1, k2 := makeKey(t, s, a, rules(c, 5, 100)), makeKey(t, s, a, rules(c, 5, 100))
	if _, err := s.SetAccountDisabled(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SetAccountDisabled(ctx, a.ID, false); got.Held() {
		t.Fatalf("a disabling held the account: %+v", got)
	}
	c.Add(time.Minute)
	if _, err := s.SetKeyState(ctx, k1.Prefix, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	held, err := s.AccountByID(ctx, a.ID)
	if err != nil || !held.HeldSince.Equal(c.Now()) {
		t.Fatalf("the account after an operator's suspension = %+v, %v; want held since now", held, err)
	}
	if _, err := s.SetKeyState(ctx, k1.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateAccountKey(ctx, newAccountKey(t, a), rules(c, 5, 100))
	wantRefused(t, err, account.ErrKeysHeld, "a key after the suspended one was revoked")
	if got, _ := s.AccountByID(ctx, a.ID); !got.HeldSince.Equal(held.HeldSince) {
		t.Fatalf("the hold moved: %+v", got)
	}
	got, err := s.ReleaseKeyHold(ctx, a.ID)
	if err != nil || got.Held() {
		t.Fatalf("ReleaseKeyHold = %+v, %v", got, err)
	}
	makeKey(t, s, a, rules(c, 5, 100))
	// Resuming the last key an operator suspended ends the hold; resuming
	// one while another stays suspended does not.
	k3 := makeKey(t, s, a, rules(c, 5, 100))
	for _, k := range []apikey.Key{k2, k3} {
		if _, err := s.SetKeyState(ctx, k.Prefix, apikey.Suspended); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetKeyState(ctx, k2.Prefix, apikey.Active); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.AccountByID(ctx, a.ID); !got.Held() {
		t.Fatal("resuming one of two suspended keys ended the hold")
	}
	if _, err := s.SetKeyState(ctx, k3.Prefix, apikey.Active); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.AccountByID(ctx, a.ID); got.Held() {
		t.Fatal("resuming the last suspended key kept the hold")
	}
	if _, err := s.ReleaseKeyHold(ctx, a.ID+100); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("ReleaseKeyHold of nothing: %v, want ErrNotFound", err)
	}
}

// testEndedAccountKeys: the keys that stopped working, newest first, a
// page at a time, only those that stopped since a moment.
func testEndedAccountKeys(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	other := signIn(t, s, c, "other@example.com")
	long := makeKey(t, s, a, rules(c, 100, 100))
	rolled := makeKey(t, s, a, rules(c, 100, 100))
	if _, err := s.SetKeyState(ctx, long.Prefix, apikey.Revoked); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetKeyExpiry(ctx, rolled.Prefix, c.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c.Add(2 * time.Hour)
	since := c.Now()
	var ended []string
	for i := range 5 {
		k := makeKey(t, s, a, rules(c, 100, 100))
		if i == 2 {
			if _, err := s.SetKeyExpiry(ctx, k.Prefix, c.Now()); err != nil {
				t.Fatal(err)
			}
		} else if _, err := s.SetKeyState(ctx, k.Prefix, apikey.Revoked); err != nil {
			t.Fatal(err)
		}
		ended = append([]string{k.Prefix}, ended...)
		makeKey(t, s, other, rules(c, 100, 100))
		c.Add(time.Minute)
	}
	working := makeKey(t, s, a, rules(c, 100, 100))
	later := makeKey(t, s, a, rules(c, 100, 100))
	if _, err := s.SetKeyExpiry(ctx, later.Prefix, c.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	page := func(before int64, limit int) (ids []int64, prefixes []string) {
		t.Helper()
		ks, err := s.EndedAccountKeys(ctx, a.ID, account.EndedKeys{Now: c.Now(), Since: since, Before: before, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			ids, prefixes = append(ids, k.ID), append(prefixes, k.Prefix)
		}
		return ids, prefixes
	}
	ids, first := page(0, 3)
	if fmt.Sprint(first) != fmt.Sprint(ended[:3]) {
		t.Fatalf("the first page = %v, want %v", first, ended[:3])
	}
	if _, rest := page(ids[2], 3); fmt.Sprint(rest) != fmt.Sprint(ended[3:]) {
		t.Fatalf("the next page = %v, want %v", rest, ended[3:])
	}
	ks, err := s.LiveAccountKeys(ctx, a.ID, c.Now())
	if err != nil || len(ks) != 2 || ks[0].Prefix != later.Prefix || ks[1].Prefix != working.Prefix {
		t.Fatalf("LiveAccountKeys = %+v, %v; want the two working, newest first", ks, err)
	}
	// From the start every ended key is there: the two that ended first too.
	all, err := s.EndedAccountKeys(ctx, a.ID, account.EndedKeys{Now: c.Now(), Limit: 100})
	if err != nil || len(all) != 7 {
		t.Fatalf("every ended key = %d, %v; want 7", len(all), err)
	}
}

// testFoldedAddress: an address is one account however the case of its
// local part is spelled; it keeps the spelling it was made with.
func testFoldedAddress(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	bob := signIn(t, s, c, "Bob@Example.com")
	for _, spelling := range []string{"bob@example.com", "BOB@EXAMPLE.COM", " bOb@example.COM "} {
		if got := signIn(t, s, c, spelling); got.ID != bob.ID || got.Email != "Bob@example.com" {
			t.Fatalf("signing in as %q = %+v, want %+v", spelling, got, bob)
		}
		if got, err := s.AccountByEmail(ctx, spelling); err != nil || got.ID != bob.ID {
			t.Fatalf("AccountByEmail(%q) = %+v, %v", spelling, got, err)
		}
	}
	for _, other := range []string{"b.ob@example.com", "bob+x@example.com"} {
		if got := signIn(t, s, c, other); got.ID == bob.ID {
			t.Fatalf("%s signs in as %+v", other, got)
		}
	}
	if ds, err := s.DuplicateAccounts(ctx); err != nil || len(ds) != 0 {
		t.Fatalf("DuplicateAccounts = %+v, %v; want none", ds, err)
	}
	// A link shows its address, and stays unused.
	_, hash := account.NewSecret()
	if err := s.CreateSignInLink(ctx, hash, "BOB@example.com", c.Now().Add(account.LinkTTL)); err != nil {
		t.Fatal(err)
	}
	if email, err := s.SignInLinkEmail(ctx, hash, c.Now()); err != nil || email != "BOB@example.com" {
		t.Fatalf("SignInLinkEmail = %q, %v", email, err)
	}
	if _, err := s.UseSignInLink(ctx, hash, c.Now()); err != nil {
		t.Fatalf("the link after SignInLinkEmail: %v", err)
	}
	_, err := s.SignInLinkEmail(ctx, hash, c.Now())
	wantLinkInvalid(t, err, "SignInLinkEmail of a used link")
	_, hash = account.NewSecret()
	if err := s.CreateSignInLink(ctx, hash, "bob@example.com", c.Now().Add(account.LinkTTL)); err != nil {
		t.Fatal(err)
	}
	_, err = s.SignInLinkEmail(ctx, hash, c.Now().Add(account.LinkTTL))
	wantLinkInvalid(t, err, "SignInLinkEmail of an expired link")
}
