package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/testclock"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// AccountStore is what the account suite runs against: the portal's
// store with the key and usage stores of the same database, as every
// backend holds them together (deleting an account revokes its keys and
// keeps their usage).
type AccountStore interface {
	account.Store
	apikey.Store
	usage.Store
}

// RunAccountStore runs the account.Store contract against stores made by
// open, which must return two handles (two connection pools, as two
// replicas have) on one fresh, empty database, both reading now for their
// timestamps. The tests but one use the first handle.
func RunAccountStore(t *testing.T, open func(t *testing.T, now func() time.Time) (AccountStore, AccountStore)) {
	runClocked(t, []clocked[AccountStore]{
		{"LinkSingleUse", testLinkSingleUse},
		{"LinkExpiry", testLinkExpiry},
		{"LinkConcurrentUse", testLinkConcurrentUse},
		{"AccountOnFirstUse", testAccountOnFirstUse},
		{"EmailNormalised", testEmailNormalised},
		{"SessionTouch", testSessionTouch},
		{"SessionIdleExpiry", testSessionIdleExpiry},
		{"SessionMaxExpiry", testSessionMaxExpiry},
		{"SessionEnd", testSessionEnd},
		{"DeletedAccountSessions", testDeletedAccountSessions},
		{"DeleteAccount", testDeleteAccount},
		{"AccountKeys", testAccountKeys},
		{"TierRequests", testTierRequests},
		{"DisableAccount", testDisableAccount},
		{"CreateAccountKey", testCreateAccountKey},
		{"RollAccountKey", testRollAccountKey},
		{"KeyHold", testKeyHold},
		{"EndedAccountKeys", testEndedAccountKeys},
		{"FoldedAddress", testFoldedAddress},
	}, func(t *testing.T, now func() time.Time) AccountStore {
		s, _ := open(t, now)
		return s
	})
	t.Run("SharedByHandles", func(t *testing.T) {
		c := suiteClock()
		a, b := open(t, c.Now)
		testAccountsShared(t, a, b, c)
	})
	t.Run("CreateAccountKeyConcurrent", func(t *testing.T) {
		c := suiteClock()
		a, b := open(t, c.Now)
		testCreateAccountKeyConcurrent(t, a, b, c)
	})
}

// newLink stores a sign-in link for email working for LinkTTL from the
// clock's time and returns its hash.
func newLink(t *testing.T, s account.Store, c *testclock.Clock, email string) string {
	t.Helper()
	_, hash := account.NewSecret()
	if err := s.CreateSignInLink(context.Background(), hash, email, c.Now().Add(account.LinkTTL)); err != nil {
		t.Fatalf("CreateSignInLink(%q): %v", email, err)
	}
	return hash
}

// signIn makes a link for email and uses it at once: the account.
func signIn(t *testing.T, s account.Store, c *testclock.Clock, email string) account.Account {
	t.Helper()
	a, err := s.UseSignInLink(context.Background(), newLink(t, s, c, email), c.Now())
	if err != nil {
		t.Fatalf("UseSignInLink(%q): %v", email, err)
	}
	return a
}

// newSession stores a session of the account made at the clock's time.
func newSession(t *testing.T, s account.Store, c *testclock.Clock, accountID int64) string {
	t.Helper()
	_, hash := account.NewSecret()
	if err := s.CreateSession(context.Background(), account.Session{Hash: hash, AccountID: accountID, CreatedAt: c.Now()}); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return hash
}

func wantLinkInvalid(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, account.ErrLinkInvalid) || !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("%s: %v, want ErrLinkInvalid", what, err)
	}
}

func wantNoSession(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, account.ErrNoSession) || !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("%s: %v, want ErrNoSession", what, err)
	}
}

func testLinkSingleUse(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	hash := newLink(t, s, c, "dev@example.com")
	c.Add(time.Minute)
	a, err := s.UseSignInLink(ctx, hash, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.Email != "dev@example.com" || !a.CreatedAt.Equal(c.Now()) || a.Deleted() {
		t.Fatalf("account made by the first use = %+v", a)
	}
	_, err = s.UseSignInLink(ctx, hash, c.Now())
	wantLinkInvalid(t, err, "second use of a link")
	c.Add(time.Minute)
	_, err = s.UseSignInLink(ctx, hash, c.Now())
	wantLinkInvalid(t, err, "third use of a link")
	_, unknown := account.NewSecret()
	_, err = s.UseSignInLink(ctx, unknown, c.Now())
	wantLinkInvalid(t, err, "an unknown link")
	if err := s.CreateSignInLink(ctx, "", "dev@example.com", c.Now().Add(account.LinkTTL)); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("a link without hash: %v, want ErrInvalid", err)
	}
}

func testLinkExpiry(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	start := c.Now()
	late, onTime, atExpiry := newLink(t, s, c, "a@example.com"), newLink(t, s, c, "b@example.com"), newLink(t, s, c, "c@example.com")
	expires := start.Add(account.LinkTTL)
	if _, err := s.UseSignInLink(ctx, onTime, expires.Add(-time.Millisecond)); err != nil {
		t.Fatalf("a link a millisecond before it expires: %v", err)
	}
	_, err := s.UseSignInLink(ctx, atExpiry, expires)
	wantLinkInvalid(t, err, "a link at the instant it expires")
	_, err = s.UseSignInLink(ctx, late, expires.Add(time.Hour))
	wantLinkInvalid(t, err, "a link an hour after it expired")
	// A newer link (whose creation may drop expired ones) works.
	c.Set(expires.Add(time.Hour))
	fresh := newLink(t, s, c, "a@example.com")
	if _, err := s.UseSignInLink(ctx, fresh, c.Now()); err != nil {
		t.Fatalf("a fresh link: %v", err)
	}
}

func testLinkConcurrentUse(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	// One link clicked at once in several places: exactly one use wins.
	// The store's connections are opened first and the uses start
	// together, over several rounds, so they do overlap.
	const n, rounds = 8, 10
	AtOnce(n, func(int) { s.ListAccounts(ctx) })
	accounts := make([]account.Account, n)
	errs := make([]error, n)
	for round := range rounds {
		hash := newLink(t, s, c, "race@example.com")
		AtOnce(n, func(i int) { accounts[i], errs[i] = s.UseSignInLink(ctx, hash, c.Now()) })
		won := 0
		for i := range n {
			switch {
			case errs[i] == nil:
				won++
			case !errors.Is(errs[i], account.ErrLinkInvalid):
				t.Errorf("round %d, use %d: %v, want success or ErrLinkInvalid", round, i, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d uses of one link succeeded, want exactly 1", round, won)
		}
	}
	// Two links of one new address used at once: one account, found by both.
	for round := range rounds {
		email := fmt.Sprintf("pair%d@example.com", round)
		var links []string
		for range n {
			links = append(links, newLink(t, s, c, email))
		}
		AtOnce(len(links), func(i int) { accounts[i], errs[i] = s.UseSignInLink(ctx, links[i], c.Now()) })
		for i := range n {
			if errs[i] != nil || accounts[i].ID != accounts[0].ID || accounts[i].ID == 0 {
				t.Fatalf("round %d: link %d of one address used with others at once: %+v, %v; want the one account %+v", round, i, accounts[i], errs[i], accounts[0])
			}
		}
	}
	all, err := s.ListAccounts(ctx)
	if err != nil || len(all) != 1+rounds {
		t.Fatalf("ListAccounts = %d accounts, %v; want one for each address", len(all), err)
	}
}

func testAccountOnFirstUse(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	if _, err := s.AccountByEmail(ctx, "dev@example.com"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("account before any sign-in: %v, want ErrNotFound", err)
	}
	first := signIn(t, s, c, "dev@example.com")
	c.Add(time.Hour)
	other := signIn(t, s, c, "other@example.com")
	c.Add(time.Hour)
	again := signIn(t, s, c, "dev@EXAMPLE.com")
	if again != first {
		t.Fatalf("second sign-in = %+v, want the first's account %+v", again, first)
	}
	if other.ID == first.ID {
		t.Fatalf("two addresses share account %d", first.ID)
	}
	for _, email := range []string{"dev@example.com", " dev@Example.COM "} {
		if got, err := s.AccountByEmail(ctx, email); err != nil || got != first {
			t.Fatalf("AccountByEmail(%q) = %+v, %v; want %+v", email, got, err, first)
		}
	}
	if got, err := s.AccountByID(ctx, other.ID); err != nil || got != other {
		t.Fatalf("AccountByID = %+v, %v; want %+v", got, err, other)
	}
	if _, err := s.AccountByID(ctx, other.ID+first.ID+100); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("AccountByID of nothing: %v, want ErrNotFound", err)
	}
	all, err := s.ListAccounts(ctx)
	if err != nil || len(all) != 2 || all[0] != first || all[1] != other {
		t.Fatalf("ListAccounts = %+v, %v; want [%+v %+v]", all, err, first, other)
	}
}

func testEmailNormalised(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "  Dev.Name+tag@Example.COM ")
	if a.Email != "Dev.Name+tag@example.com" {
		t.Fatalf("stored email %q, want the domain in lower case and no spaces", a.Email)
	}
	for _, bad := range []string{"", "no-at-sign", "Dev <dev@example.com>", "a@localhost", "a@example.com, b@example.com"} {
		_, hash := account.NewSecret()
		if err := s.CreateSignInLink(ctx, hash, bad, c.Now().Add(account.LinkTTL)); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("CreateSignInLink(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	if all, err := s.ListAccounts(ctx); err != nil || len(all) != 1 {
		t.Fatalf("ListAccounts = %+v, %v; want only the valid address's account", all, err)
	}
}

func testSessionTouch(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	created := c.Now()
	hash := newSession(t, s, c, a.ID)
	c.Add(time.Hour)
	sess, got, err := s.TouchSession(ctx, hash, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	if sess.Hash != hash || sess.AccountID != a.ID || !sess.CreatedAt.Equal(created) || !sess.LastSeen.Equal(c.Now()) || got != a {
		t.Fatalf("TouchSession = %+v, %+v; want the session seen now and account %+v", sess, got, a)
	}
	_, unknown := account.NewSecret()
	_, _, err = s.TouchSession(ctx, unknown, c.Now())
	wantNoSession(t, err, "an unknown session")
	if err := s.CreateSession(ctx, account.Session{Hash: unknown, AccountID: a.ID + 100, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a session of no account: %v, want ErrNotFound", err)
	}
}

func testSessionIdleExpiry(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	hash := newSession(t, s, c, a.ID)
	start := c.Now()
	// Each touch moves the idle deadline: used every 6 days, it lives on
	// (well within SessionMax, so only idleness can end it here).
	for i := 1; i <= 2; i++ {
		c.Add(account.SessionIdle - 24*time.Hour)
		if _, _, err := s.TouchSession(ctx, hash, c.Now()); err != nil {
			t.Fatalf("touch %d: %v", i, err)
		}
	}
	lastSeen := c.Now()
	if _, _, err := s.TouchSession(ctx, hash, lastSeen.Add(account.SessionIdle-time.Millisecond)); err != nil {
		t.Fatalf("a millisecond before the idle limit: %v", err)
	}
	c.Set(lastSeen.Add(account.SessionIdle - time.Millisecond).Add(account.SessionIdle))
	_, _, err := s.TouchSession(ctx, hash, c.Now())
	wantNoSession(t, err, "a session idle for SessionIdle")
	// It was deleted: asking again with a time it would live at finds nothing.
	_, _, err = s.TouchSession(ctx, hash, start)
	wantNoSession(t, err, "an idle-expired session asked again")
}

func testSessionMaxExpiry(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	hash := newSession(t, s, c, a.ID)
	created := c.Now()
	for c.Now().Before(created.Add(account.SessionMax - 24*time.Hour)) {
		c.Add(24 * time.Hour)
		if _, _, err := s.TouchSession(ctx, hash, c.Now()); err != nil {
			t.Fatalf("daily touch at +%v: %v", c.Now().Sub(created), err)
		}
	}
	if _, _, err := s.TouchSession(ctx, hash, created.Add(account.SessionMax-time.Millisecond)); err != nil {
		t.Fatalf("a millisecond before SessionMax: %v", err)
	}
	_, _, err := s.TouchSession(ctx, hash, created.Add(account.SessionMax))
	wantNoSession(t, err, "a session used daily, at SessionMax")
	_, _, err = s.TouchSession(ctx, hash, created.Add(time.Hour))
	wantNoSession(t, err, "a session past SessionMax asked again")
}

func testSessionEnd(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	b := signIn(t, s, c, "other@example.com")
	phone, laptop, tablet := newSession(t, s, c, a.ID), newSession(t, s, c, a.ID), newSession(t, s, c, a.ID)
	others := newSession(t, s, c, b.ID)
	if err := s.EndSession(ctx, phone); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.TouchSession(ctx, phone, c.Now())
	wantNoSession(t, err, "an ended session")
	if _, _, err := s.TouchSession(ctx, laptop, c.Now()); err != nil {
		t.Fatalf("another session of the account after EndSession: %v", err)
	}
	if err := s.EndSession(ctx, phone); err != nil {
		t.Fatalf("ending an ended session: %v", err)
	}
	if err := s.EndSessions(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{laptop, tablet} {
		_, _, err := s.TouchSession(ctx, h, c.Now())
		wantNoSession(t, err, "a session after EndSessions")
	}
	if _, got, err := s.TouchSession(ctx, others, c.Now()); err != nil || got.ID != b.ID {
		t.Fatalf("another account's session after EndSessions: %+v, %v", got, err)
	}
}

func testDeletedAccountSessions(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	hash := newSession(t, s, c, a.ID)
	if err := s.DeleteAccount(ctx, a.ID, c.Now()); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.TouchSession(ctx, hash, c.Now())
	wantNoSession(t, err, "a session of a deleted account")
	_, late := account.NewSecret()
	if err := s.CreateSession(ctx, account.Session{Hash: late, AccountID: a.ID, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a new session of a deleted account: %v, want ErrNotFound", err)
	}
	_, _, err = s.TouchSession(ctx, late, c.Now())
	wantNoSession(t, err, "the refused session")
}

// accountKey stores a key of the account (0: the operator's) with an email.
func accountKey(t *testing.T, s apikey.Store, accountID int64, email string) apikey.Key {
	t.Helper()
	k := newTestKey(t, apikey.Free)
	k.AccountID, k.Email = accountID, email
	return mustCreate(t, s, k)
}

func testDeleteAccount(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	b := signIn(t, s, c, "other@example.com")
	k1, k2 := accountKey(t, s, a.ID, "dev@example.com"), accountKey(t, s, a.ID, "dev@example.com")
	operators := accountKey(t, s, 0, "dev@example.com")
	others := accountKey(t, s, b.ID, "other@example.com")
	if _, err := s.SetKeyState(ctx, k2.Prefix, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	hour := c.Now().Truncate(time.Hour)
	counts := []usage.Count{
		{KeyPrefix: k1.Prefix, Endpoint: "perfumes", StatusClass: "2xx", Start: hour, Count: 5},
		{KeyPrefix: k2.Prefix, Endpoint: "brands", StatusClass: "4xx", Start: hour, Count: 2},
	}
	if err := s.RecordUsage(ctx, usage.Batch{Hourly: counts}); err != nil {
		t.Fatal(err)
	}
	unused := newLink(t, s, c, "dev@example.com")
	session := newSession(t, s, c, a.ID)
	if _, err := s.CreateTierRequest(ctx, account.TierRequest{AccountID: a.ID, KeyPrefix: k1.Prefix, Tier: apikey.Pro, UseCase: "an app"}); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Minute)
	deletedAt := c.Now()
	if err := s.DeleteAccount(ctx, a.ID, deletedAt); err != nil {
		t.Fatal(err)
	}

	got, err := s.AccountByID(ctx, a.ID)
	if err != nil || !got.Deleted() || !got.DeletedAt.Equal(deletedAt) || got.Email != "" || got.ID != a.ID || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("deleted account = %+v, %v; want its id, no email, deleted at %v", got, err, deletedAt)
	}
	if _, err := s.AccountByEmail(ctx, "dev@example.com"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("AccountByEmail of a deleted account: %v, want ErrNotFound", err)
	}
	for _, k := range []apikey.Key{k1, k2} {
		got, err := s.KeyByPrefix(ctx, k.Prefix)
		if err != nil || got.State != apikey.Revoked || got.Email != "" || got.AccountID != a.ID || !got.UpdatedAt.Equal(deletedAt) {
			t.Fatalf("key %s after DeleteAccount = %+v, %v; want revoked, no email, updated now", k.Prefix, got, err)
		}
	}
	changed, err := s.KeysChangedSince(ctx, deletedAt)
	if err != nil || len(changed) != 2 {
		t.Fatalf("KeysChangedSince(deletion) = %d keys, %v; want the two revoked (so replicas drop them)", len(changed), err)
	}
	for _, k := range []apikey.Key{operators, others} {
		if got, err := s.KeyByPrefix(ctx, k.Prefix); err != nil || got.State != apikey.Active || got.Email != k.Email {
			t.Fatalf("a key of no or another account after DeleteAccount = %+v, %v; want it untouched", got, err)
		}
	}
	day := hour.Truncate(24 * time.Hour)
	for _, cnt := range counts {
		rows, err := s.DailyUsage(ctx, cnt.KeyPrefix, day, day.Add(24*time.Hour))
		if err != nil || len(rows) != 1 || rows[0].Count != cnt.Count {
			t.Fatalf("usage of %s after DeleteAccount = %+v, %v; want it kept", cnt.KeyPrefix, rows, err)
		}
	}
	_, err = s.UseSignInLink(ctx, unused, c.Now())
	wantLinkInvalid(t, err, "an unused link of a deleted account")
	_, _, err = s.TouchSession(ctx, session, c.Now())
	wantNoSession(t, err, "a session of a deleted account")
	if rs, err := s.TierRequests(ctx, a.ID); err != nil || len(rs) != 0 {
		t.Fatalf("tier requests of a deleted account = %+v, %v; want none", rs, err)
	}
	if rs, err := s.PendingTierRequests(ctx); err != nil || len(rs) != 0 {
		t.Fatalf("pending tier requests after DeleteAccount = %+v, %v; want none", rs, err)
	}

	// The address may sign up again: a new account.
	again := signIn(t, s, c, "dev@example.com")
	if again.ID == a.ID || again.Deleted() {
		t.Fatalf("signing in again after deletion = %+v; want a new account", again)
	}
	if ks, err := s.AccountKeys(ctx, again.ID); err != nil || len(ks) != 0 {
		t.Fatalf("the new account's keys = %+v, %v; want none", ks, err)
	}
	// Deleting again changes nothing; deleting nothing is not found.
	c.Add(time.Hour)
	if err := s.DeleteAccount(ctx, a.ID, c.Now()); err != nil {
		t.Fatalf("deleting a deleted account: %v", err)
	}
	if got, _ := s.AccountByID(ctx, a.ID); !got.DeletedAt.Equal(deletedAt) {
		t.Fatalf("second deletion moved DeletedAt to %v", got.DeletedAt)
	}
	if got, _ := s.AccountByID(ctx, again.ID); got.Deleted() || got.Email != "dev@example.com" {
		t.Fatalf("deleting the old account again touched the new one: %+v", got)
	}
	if err := s.DeleteAccount(ctx, again.ID+100, c.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("DeleteAccount of nothing: %v, want ErrNotFound", err)
	}
}

func testAccountKeys(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	b := signIn(t, s, c, "other@example.com")
	var want []string
	for range 3 {
		want = append(want, accountKey(t, s, a.ID, a.Email).Prefix)
		accountKey(t, s, b.ID, b.Email)
		accountKey(t, s, 0, "")
		c.Add(time.Second)
	}
	ks, err := s.AccountKeys(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range ks {
		if k.AccountID != a.ID {
			t.Fatalf("AccountKeys(%d) holds %+v", a.ID, k)
		}
		got = append(got, k.Prefix)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("AccountKeys = %v, want %v (oldest first)", got, want)
	}
	if ks, err := s.AccountKeys(ctx, 0); err != nil || len(ks) != 0 {
		t.Fatalf("AccountKeys(0) = %d keys, %v; the operator's keys belong to no account", len(ks), err)
	}
}

func testTierRequests(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	b := signIn(t, s, c, "other@example.com")
	ka, kb := accountKey(t, s, a.ID, a.Email), accountKey(t, s, b.ID, b.Email)
	for _, bad := range []account.TierRequest{
		{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Pro},
		{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Pro, UseCase: "   "},
		{AccountID: a.ID, Tier: apikey.Pro, UseCase: "an app"},
		{AccountID: a.ID, KeyPrefix: ka.Prefix, UseCase: "an app"},
		{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Pro, UseCase: strings.Repeat("é", account.MaxUseCase+1)},
		{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Pro, UseCase: "an app", Volume: strings.Repeat("9", account.MaxVolume+1)},
	} {
		if _, err := s.CreateTierRequest(ctx, bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("CreateTierRequest(%.80v) = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := s.CreateTierRequest(ctx, account.TierRequest{AccountID: a.ID + b.ID + 100, KeyPrefix: ka.Prefix, Tier: apikey.Pro, UseCase: "x"}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a request of no account: %v, want ErrNotFound", err)
	}

	first, err := s.CreateTierRequest(ctx, account.TierRequest{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Pro,
		UseCase: strings.Repeat("é", account.MaxUseCase), Volume: "10k a day", State: account.Approved, Note: "forged"})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == 0 || first.State != account.Pending || first.Note != "" || !first.CreatedAt.Equal(c.Now()) || !first.DecidedAt.IsZero() ||
		first.Tier != apikey.Pro || first.KeyPrefix != ka.Prefix || first.Volume != "10k a day" || first.AccountID != a.ID {
		t.Fatalf("created request = %+v; want it pending, undecided, made now", first)
	}
	c.Add(time.Minute)
	others, err := s.CreateTierRequest(ctx, account.TierRequest{AccountID: b.ID, KeyPrefix: kb.Prefix, Tier: apikey.Basic, UseCase: "a blog"})
	if err != nil {
		t.Fatal(err)
	}
	c.Add(time.Minute)
	second, err := s.CreateTierRequest(ctx, account.TierRequest{AccountID: a.ID, KeyPrefix: ka.Prefix, Tier: apikey.Enterprise, UseCase: "more"})
	if err != nil {
		t.Fatal(err)
	}
	wantRequests(t, "TierRequests(a)", func() ([]account.TierRequest, error) { return s.TierRequests(ctx, a.ID) }, second, first)
	wantRequests(t, "PendingTierRequests", func() ([]account.TierRequest, error) { return s.PendingTierRequests(ctx) }, first, others, second)

	c.Add(time.Hour)
	decided, err := s.DecideTierRequest(ctx, first.ID, account.Approved, "Enjoy.", c.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := first
	want.State, want.Note, want.DecidedAt = account.Approved, "Enjoy.", c.Now()
	if !sameRequest(decided, want) {
		t.Fatalf("decided = %+v, want %+v", decided, want)
	}
	if _, err := s.DecideTierRequest(ctx, first.ID, account.Declined, "changed my mind", c.Now()); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("deciding a decided request: %v, want ErrInvalid", err)
	}
	if _, err := s.DecideTierRequest(ctx, second.ID, account.Pending, "", c.Now()); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("deciding \"pending\": %v, want ErrInvalid", err)
	}
	if _, err := s.DecideTierRequest(ctx, second.ID, "maybe", "", c.Now()); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("deciding an unknown state: %v, want ErrInvalid", err)
	}
	if _, err := s.DecideTierRequest(ctx, second.ID+100, account.Declined, "", c.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("deciding nothing: %v, want ErrNotFound", err)
	}
	declined, err := s.DecideTierRequest(ctx, others.ID, account.Declined, "Not for blogs.", c.Now())
	if err != nil || declined.State != account.Declined || declined.Note != "Not for blogs." {
		t.Fatalf("declined = %+v, %v", declined, err)
	}
	wantRequests(t, "TierRequests(a) after a decision", func() ([]account.TierRequest, error) { return s.TierRequests(ctx, a.ID) }, second, want)
	wantRequests(t, "PendingTierRequests after decisions", func() ([]account.TierRequest, error) { return s.PendingTierRequests(ctx) }, second)

	// Two operators deciding one request at once: exactly one decides it.
	errs := make([]error, 4)
	AtOnce(len(errs), func(i int) {
		_, errs[i] = s.DecideTierRequest(ctx, second.ID, account.Declined, fmt.Sprint("operator ", i), c.Now())
	})
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, catalog.ErrInvalid):
			t.Errorf("a concurrent decision: %v, want success or ErrInvalid", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent decisions succeeded, want 1", won)
	}
}

// testDisableAccount: disabling suspends the account's active keys (only
// those), ends its sessions and refuses new ones; enabling resumes the
// keys the disabling suspended, not those an operator set meanwhile.
func testDisableAccount(t *testing.T, s AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	a := signIn(t, s, c, "dev@example.com")
	b := signIn(t, s, c, "other@example.com")
	active, pinned, operators := accountKey(t, s, a.ID, a.Email), accountKey(t, s, a.ID, a.Email), accountKey(t, s, a.ID, a.Email)
	suspended, revoked := accountKey(t, s, a.ID, a.Email), accountKey(t, s, a.ID, a.Email)
	others := accountKey(t, s, b.ID, b.Email)
	for _, st := range []struct {
		k     apikey.Key
		state apikey.State
	}{{suspended, apikey.Suspended}, {revoked, apikey.Revoked}} {
		if _, err := s.SetKeyState(ctx, st.k.Prefix, st.state); err != nil {
			t.Fatal(err)
		}
	}
	session, othersSession := newSession(t, s, c, a.ID), newSession(t, s, c, b.ID)
	wantStates := func(when string, want map[string]apikey.State) {
		t.Helper()
		for prefix, st := range want {
			if k, err := s.KeyByPrefix(ctx, prefix); err != nil || k.State != st {
				t.Fatalf("%s: key %s = %s, %v; want %s", when, prefix, k.State, err, st)
			}
		}
	}

	c.Add(time.Minute)
	disabledAt := c.Now()
	got, err := s.SetAccountDisabled(ctx, a.ID, true)
	if err != nil || !got.Disabled || got.ID != a.ID || got.Email != a.Email {
		t.Fatalf("SetAccountDisabled(true) = %+v, %v", got, err)
	}
	if read, err := s.AccountByID(ctx, a.ID); err != nil || read != got {
		t.Fatalf("AccountByID after disabling = %+v, %v; want %+v", read, err, got)
	}
	wantStates("disabled", map[string]apikey.State{active.Prefix: apikey.Suspended, pinned.Prefix: apikey.Suspended,
		operators.Prefix: apikey.Suspended, suspended.Prefix: apikey.Suspended, revoked.Prefix: apikey.Revoked, others.Prefix: apikey.Active})
	changed, err := s.KeysChangedSince(ctx, disabledAt)
	if err != nil || len(changed) != 3 {
		t.Fatalf("KeysChangedSince(disabling) = %d keys, %v; want the three suspended (so replicas refuse them)", len(changed), err)
	}
	_, _, err = s.TouchSession(ctx, session, c.Now())
	wantNoSession(t, err, "a session of a disabled account")
	if _, got, err := s.TouchSession(ctx, othersSession, c.Now()); err != nil || got.ID != b.ID {
		t.Fatalf("another account's session after a disabling = %+v, %v", got, err)
	}
	_, late := account.NewSecret()
	if err := s.CreateSession(ctx, account.Session{Hash: late, AccountID: a.ID, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a new session of a disabled account: %v, want ErrNotFound", err)
	}
	// A link still works as a link, and tells the portal the account is disabled.
	if got, err := s.UseSignInLink(ctx, newLink(t, s, c, a.Email), c.Now()); err != nil || got.ID != a.ID || !got.Disabled {
		t.Fatalf("a disabled account's link = %+v, %v; want the account, disabled", got, err)
	}
	if got, err := s.AccountByEmail(ctx, a.Email); err != nil || !got.Disabled {
		t.Fatalf("AccountByEmail of a disabled account = %+v, %v", got, err)
	}

	// Meanwhile an operator pins one key suspended, another is resumed and
	// made active by hand; disabling again suspends that one.
	if _, err := s.SetKeyState(ctx, pinned.Prefix, apikey.Suspended); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetKeyState(ctx, operators.Prefix, apikey.Active); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetAccountDisabled(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	wantStates("disabled twice", map[string]apikey.State{operators.Prefix: apikey.Suspended})

	c.Add(time.Minute)
	enabledAt := c.Now()
	got, err = s.SetAccountDisabled(ctx, a.ID, false)
	if err != nil || got.Disabled {
		t.Fatalf("SetAccountDisabled(false) = %+v, %v", got, err)
	}
	wantStates("enabled", map[string]apikey.State{active.Prefix: apikey.Active, operators.Prefix: apikey.Active,
		pinned.Prefix: apikey.Suspended, suspended.Prefix: apikey.Suspended, revoked.Prefix: apikey.Revoked, others.Prefix: apikey.Active})
	if changed, err := s.KeysChangedSince(ctx, enabledAt); err != nil || len(changed) != 2 {
		t.Fatalf("KeysChangedSince(enabling) = %d keys, %v; want the two resumed", len(changed), err)
	}
	if _, _, err := s.TouchSession(ctx, newSession(t, s, c, a.ID), c.Now()); err != nil {
		t.Fatalf("a new session after enabling: %v", err)
	}
	// Enabling again changes no key.
	if _, err := s.SetAccountDisabled(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	wantStates("enabled twice", map[string]apikey.State{pinned.Prefix: apikey.Suspended, suspended.Prefix: apikey.Suspended})
	if _, err := s.SetAccountDisabled(ctx, b.ID+100, true); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("disabling nothing: %v, want ErrNotFound", err)
	}
}

// sameRequest compares requests with times compared as instants.
func sameRequest(a, b account.TierRequest) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.DecidedAt.Equal(b.DecidedAt) {
		return false
	}
	a.CreatedAt, a.DecidedAt, b.CreatedAt, b.DecidedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return a == b
}

func wantRequests(t *testing.T, what string, list func() ([]account.TierRequest, error), want ...account.TierRequest) {
	t.Helper()
	got, err := list()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = sameRequest(got[i], want[i])
	}
	if !ok {
		t.Fatalf("%s = %+v\nwant %+v", what, got, want)
	}
}

// testAccountsShared is two replicas (a, b) on one database: a browser
// signed in through one is signed in on the other, and signing out
// through one ends it on both.
func testAccountsShared(t *testing.T, a, b AccountStore, c *testclock.Clock) {
	ctx := context.Background()
	link := newLink(t, a, c, "dev@example.com")
	acct, err := b.UseSignInLink(ctx, link, c.Now())
	if err != nil {
		t.Fatalf("using through b a link made through a: %v", err)
	}
	_, err = a.UseSignInLink(ctx, link, c.Now())
	wantLinkInvalid(t, err, "using through a a link used through b")
	hash := newSession(t, a, c, acct.ID)
	c.Add(time.Hour)
	sess, got, err := b.TouchSession(ctx, hash, c.Now())
	if err != nil || got.ID != acct.ID || !sess.LastSeen.Equal(c.Now()) {
		t.Fatalf("touching through b a session made through a = %+v, %+v, %v", sess, got, err)
	}
	c.Add(time.Hour)
	if sess, _, err := a.TouchSession(ctx, hash, c.Now()); err != nil || !sess.LastSeen.Equal(c.Now()) {
		t.Fatalf("touching through a again = %+v, %v", sess, err)
	}
	if err := b.EndSession(ctx, hash); err != nil {
		t.Fatal(err)
	}
	_, _, err = a.TouchSession(ctx, hash, c.Now())
	wantNoSession(t, err, "a session ended through the other replica")
}
