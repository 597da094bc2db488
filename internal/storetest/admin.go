package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// RunAdminStore runs the admin.Store contract against stores made by
// open, which must return a fresh, empty store reading now for its
// timestamps, and exec, which runs one SQL statement on the same
// database outside the store (as an operator's own SQL would).
func RunAdminStore(t *testing.T, open func(t *testing.T, now func() time.Time) (s admin.Store, exec func(query string) error)) {
	runClocked(t, []clocked[admin.Store]{
		{"UserCreateAndFind", testAdminUserCreate},
		{"UserListAndUpdate", testAdminUserUpdate},
		{"DisableEndsSessions", testAdminDisableEndsSessions},
		{"PasswordChangeEndsSessions", testAdminPasswordEndsSessions},
		{"SessionTouch", testAdminSessionTouch},
		{"SessionIdleExpiry", testAdminSessionIdle},
		{"SessionMaxExpiry", testAdminSessionMax},
		{"SessionEnd", testAdminSessionEnd},
		{"AuditOrderAndPaging", testAuditPaging},
		{"TOTPStepOnce", testTOTPStep},
		{"RecoveryCodeOnce", testSpendRecoveryCode},
	}, func(t *testing.T, now func() time.Time) admin.Store {
		s, _ := open(t, now)
		return s
	})
	t.Run("AuditAppendOnly", func(t *testing.T) {
		s, exec := open(t, suiteClock().Now)
		testAuditAppendOnly(t, s, exec)
	})
}

// newAdmin stores an admin of email with a made-up password hash (the
// store keeps it as given).
func newAdmin(t *testing.T, s admin.Store, email string) admin.User {
	t.Helper()
	u, err := s.CreateAdminUser(context.Background(), admin.User{Email: email, PasswordHash: "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"})
	if err != nil {
		t.Fatalf("CreateAdminUser(%q): %v", email, err)
	}
	return u
}

// newAdminSession stores a session of the admin made at the clock's time
// and returns its hash.
func newAdminSession(t *testing.T, s admin.Store, c *testclock.Clock, userID int64) string {
	t.Helper()
	b := make([]byte, 32)
	rand.Read(b)
	h := hex.EncodeToString(b)
	if err := s.CreateAdminSession(context.Background(), admin.Session{Hash: h, UserID: userID, IP: "192.0.2.7", CreatedAt: c.Now()}); err != nil {
		t.Fatalf("CreateAdminSession: %v", err)
	}
	return h
}

func wantNoAdminSession(t *testing.T, s admin.Store, c *testclock.Clock, hash, what string) {
	t.Helper()
	if _, _, err := s.TouchAdminSession(context.Background(), hash, c.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("%s: %v, want ErrNotFound", what, err)
	}
}

// sameUser compares users with times compared as instants.
func sameUser(a, b admin.User) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) {
		return false
	}
	a.CreatedAt, a.UpdatedAt, b.CreatedAt, b.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func testAdminUserCreate(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	u, err := s.CreateAdminUser(ctx, admin.User{Email: " Ops@Example.COM ", PasswordHash: "$argon2id$hash", TOTPSecret: "JBSWY3DPEHPK3PXP",
		RecoveryHashes: []string{"aa", "bb"}})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID == 0 || u.Email != "Ops@example.com" || u.PasswordHash != "$argon2id$hash" || u.TOTPSecret != "JBSWY3DPEHPK3PXP" ||
		!reflect.DeepEqual(u.RecoveryHashes, []string{"aa", "bb"}) || u.Disabled || !u.CreatedAt.Equal(c.Now()) || !u.UpdatedAt.Equal(c.Now()) {
		t.Fatalf("created %+v; want the email normalised, every field kept, made now", u)
	}
	for _, email := range []string{"Ops@example.com", "Ops@EXAMPLE.com "} {
		if got, err := s.AdminUserByEmail(ctx, email); err != nil || !sameUser(got, u) {
			t.Fatalf("AdminUserByEmail(%q) = %+v, %v; want %+v", email, got, err, u)
		}
	}
	if got, err := s.AdminUserByID(ctx, u.ID); err != nil || !sameUser(got, u) {
		t.Fatalf("AdminUserByID = %+v, %v", got, err)
	}
	if _, err := s.CreateAdminUser(ctx, admin.User{Email: "Ops@EXAMPLE.com", PasswordHash: "x"}); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("a taken email: %v, want ErrInvalid", err)
	}
	for _, bad := range []admin.User{{Email: "new@example.com"}, {Email: "not an address", PasswordHash: "x"}, {PasswordHash: "x"}} {
		if _, err := s.CreateAdminUser(ctx, bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("CreateAdminUser(%+v): %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := s.AdminUserByEmail(ctx, "ops@example.com"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("another local part's admin: %v, want ErrNotFound", err)
	}
	if _, err := s.AdminUserByID(ctx, u.ID+100); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("AdminUserByID of nothing: %v, want ErrNotFound", err)
	}
	plain := newAdmin(t, s, "plain@example.com")
	if plain.RecoveryHashes != nil || plain.TOTPSecret != "" {
		t.Errorf("an admin made without a second factor reads back as %+v", plain)
	}
}

func testAdminUserUpdate(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	if users, err := s.ListAdminUsers(ctx); err != nil || len(users) != 0 {
		t.Fatalf("ListAdminUsers of an empty store = %+v, %v", users, err)
	}
	a := newAdmin(t, s, "a@example.com")
	c.Add(time.Second)
	b := newAdmin(t, s, "b@example.com")
	c.Add(time.Second)
	want := a
	want.Email = "forged@example.com" // not stored: an email does not change
	want.PasswordHash, want.TOTPSecret, want.RecoveryHashes = "$argon2id$new", "GEZDGNBVGY3TQOJQ", []string{"h1", "h2", "h3"}
	got, err := s.UpdateAdminUser(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	want.Email, want.UpdatedAt = a.Email, c.Now()
	if !sameUser(got, want) {
		t.Fatalf("UpdateAdminUser = %+v, want %+v", got, want)
	}
	if read, err := s.AdminUserByID(ctx, a.ID); err != nil || !sameUser(read, want) {
		t.Fatalf("read back %+v, %v; want %+v", read, err, want)
	}
	// Spending every recovery code and dropping the second factor.
	want.TOTPSecret, want.RecoveryHashes = "", nil
	if got, err := s.UpdateAdminUser(ctx, want); err != nil || !sameUser(got, want) {
		t.Fatalf("clearing the second factor = %+v, %v", got, err)
	}
	users, err := s.ListAdminUsers(ctx)
	if err != nil || len(users) != 2 || !sameUser(users[0], want) || !sameUser(users[1], b) {
		t.Fatalf("ListAdminUsers = %+v, %v; want a, b (oldest first)", users, err)
	}
	if _, err := s.UpdateAdminUser(ctx, admin.User{ID: b.ID + 100, PasswordHash: "x"}); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("updating nobody: %v, want ErrNotFound", err)
	}
	if _, err := s.UpdateAdminUser(ctx, admin.User{ID: b.ID}); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("updating without a password hash: %v, want ErrInvalid", err)
	}
}

func testAdminDisableEndsSessions(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	a, b := newAdmin(t, s, "a@example.com"), newAdmin(t, s, "b@example.com")
	phone, laptop := newAdminSession(t, s, c, a.ID), newAdminSession(t, s, c, a.ID)
	others := newAdminSession(t, s, c, b.ID)
	a.Disabled = true
	got, err := s.UpdateAdminUser(ctx, a)
	if err != nil || !got.Disabled {
		t.Fatalf("disabling = %+v, %v", got, err)
	}
	for _, h := range []string{phone, laptop} {
		wantNoAdminSession(t, s, c, h, "a disabled admin's session")
	}
	if err := s.CreateAdminSession(ctx, admin.Session{Hash: "f00d", UserID: a.ID, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a new session of a disabled admin: %v, want ErrNotFound", err)
	}
	if _, u, err := s.TouchAdminSession(ctx, others, c.Now()); err != nil || u.ID != b.ID {
		t.Fatalf("another admin's session after a disabling = %+v, %v", u, err)
	}
	// Enabled again: the old sessions stay ended, new ones work.
	a.Disabled = false
	if _, err := s.UpdateAdminUser(ctx, a); err != nil {
		t.Fatal(err)
	}
	wantNoAdminSession(t, s, c, phone, "a session ended by a disabling, after enabling")
	if _, _, err := s.TouchAdminSession(ctx, newAdminSession(t, s, c, a.ID), c.Now()); err != nil {
		t.Fatalf("a new session after enabling: %v", err)
	}
	if err := s.CreateAdminSession(ctx, admin.Session{Hash: "beef", UserID: b.ID + 100, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a session of nobody: %v, want ErrNotFound", err)
	}
	if err := s.CreateAdminSession(ctx, admin.Session{UserID: b.ID, CreatedAt: c.Now()}); !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("a session without hash: %v, want ErrInvalid", err)
	}
}

func testAdminPasswordEndsSessions(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	a := newAdmin(t, s, "a@example.com")
	h := newAdminSession(t, s, c, a.ID)
	a.TOTPSecret, a.RecoveryHashes = "GEZDGNBVGY3TQOJQ", []string{"h1"}
	if _, err := s.UpdateAdminUser(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.TouchAdminSession(ctx, h, c.Now()); err != nil {
		t.Fatalf("a session after enrolling a second factor: %v (it stays)", err)
	}
	a.PasswordHash = "$argon2id$reset"
	if _, err := s.UpdateAdminUser(ctx, a); err != nil {
		t.Fatal(err)
	}
	wantNoAdminSession(t, s, c, h, "a session after the password changed")
}

func testAdminSessionTouch(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	a := newAdmin(t, s, "a@example.com")
	created := c.Now()
	h := newAdminSession(t, s, c, a.ID)
	c.Add(10 * time.Minute)
	sess, u, err := s.TouchAdminSession(ctx, h, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	if sess.Hash != h || sess.UserID != a.ID || sess.IP != "192.0.2.7" || !sess.CreatedAt.Equal(created) || !sess.LastSeen.Equal(c.Now()) ||
		!sameUser(u, a) {
		t.Fatalf("TouchAdminSession = %+v, %+v; want the session seen now and admin %+v", sess, u, a)
	}
	// A touch with an earlier time does not move LastSeen back.
	if sess, _, err := s.TouchAdminSession(ctx, h, created); err != nil || !sess.LastSeen.Equal(c.Now()) {
		t.Fatalf("a touch at an earlier time = %+v, %v", sess, err)
	}
	wantNoAdminSession(t, s, c, "0123", "an unknown session")
}

func testAdminSessionIdle(t *testing.T, s admin.Store, c *testclock.Clock) {
	a := newAdmin(t, s, "a@example.com")
	h := newAdminSession(t, s, c, a.ID)
	start := c.Now()
	for i := 1; i <= 3; i++ {
		c.Add(admin.SessionIdle - time.Minute)
		if _, _, err := s.TouchAdminSession(context.Background(), h, c.Now()); err != nil {
			t.Fatalf("touch %d, just within the idle limit: %v", i, err)
		}
	}
	c.Add(admin.SessionIdle)
	wantNoAdminSession(t, s, c, h, "a session idle for SessionIdle")
	c.Set(start)
	wantNoAdminSession(t, s, c, h, "an idle-expired session asked again")
}

func testAdminSessionMax(t *testing.T, s admin.Store, c *testclock.Clock) {
	a := newAdmin(t, s, "a@example.com")
	h := newAdminSession(t, s, c, a.ID)
	created := c.Now()
	for c.Now().Before(created.Add(admin.SessionMax - admin.SessionIdle)) {
		c.Add(admin.SessionIdle / 2)
		if _, _, err := s.TouchAdminSession(context.Background(), h, c.Now()); err != nil {
			t.Fatalf("touch at +%v: %v", c.Now().Sub(created), err)
		}
	}
	c.Set(created.Add(admin.SessionMax - time.Millisecond))
	if _, _, err := s.TouchAdminSession(context.Background(), h, c.Now()); err != nil {
		t.Fatalf("a millisecond before SessionMax: %v", err)
	}
	c.Set(created.Add(admin.SessionMax))
	wantNoAdminSession(t, s, c, h, "a session used all along, at SessionMax")
}

func testAdminSessionEnd(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	a := newAdmin(t, s, "a@example.com")
	h, other := newAdminSession(t, s, c, a.ID), newAdminSession(t, s, c, a.ID)
	if err := s.EndAdminSession(ctx, h); err != nil {
		t.Fatal(err)
	}
	wantNoAdminSession(t, s, c, h, "an ended session")
	if err := s.EndAdminSession(ctx, h); err != nil {
		t.Fatalf("ending an ended session: %v", err)
	}
	if _, _, err := s.TouchAdminSession(ctx, other, c.Now()); err != nil {
		t.Fatalf("the other session after EndAdminSession: %v", err)
	}
}

// appendAudit appends an entry at the clock's time and returns it.
func appendAudit(t *testing.T, s admin.Store, c *testclock.Clock, action, target string) admin.AuditEntry {
	t.Helper()
	e, err := s.AppendAudit(context.Background(), admin.AuditEntry{At: c.Now(), Actor: "ops@example.com", IP: "192.0.2.7",
		Action: action, Target: target, Reason: "why: " + action, Detail: "free → pro"})
	if err != nil {
		t.Fatalf("AppendAudit(%s): %v", action, err)
	}
	return e
}

func auditIDs(es []admin.AuditEntry) []int64 {
	out := []int64{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func testAuditPaging(t *testing.T, s admin.Store, c *testclock.Clock) {
	ctx := context.Background()
	if es, err := s.Audit(ctx, 0, 10, ""); err != nil || len(es) != 0 {
		t.Fatalf("the audit of an empty store = %+v, %v", es, err)
	}
	var all []admin.AuditEntry
	for i := range 7 {
		target := "fds_aaaaaaaa"
		if i%2 == 1 {
			target = "account:12"
		}
		c.Add(1500 * time.Microsecond) // read back to the millisecond
		all = append(all, appendAudit(t, s, c, fmt.Sprintf("key.action%d", i), target))
	}
	first := all[0]
	if first.ID == 0 || !first.At.Equal(c.Now().Add(-6*1500*time.Microsecond).Truncate(time.Millisecond)) || first.Actor != "ops@example.com" ||
		first.IP != "192.0.2.7" || first.Action != "key.action0" || first.Target != "fds_aaaaaaaa" || first.Reason != "why: key.action0" ||
		first.Detail != "free → pro" {
		t.Fatalf("appended %+v", first)
	}
	newestFirst := func(es []admin.AuditEntry) []int64 {
		ids := auditIDs(es)
		for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
			ids[i], ids[j] = ids[j], ids[i]
		}
		return ids
	}
	for _, tc := range []struct {
		name   string
		before int64
		limit  int
		target string
		want   []int64
	}{
		{"every entry", 0, 100, "", newestFirst(all)},
		{"the newest three", 0, 3, "", newestFirst(all[4:])},
		{"the next page", all[4].ID, 3, "", newestFirst(all[1:4])},
		{"the last page", all[1].ID, 3, "", newestFirst(all[:1])},
		{"past the oldest", all[0].ID, 3, "", []int64{}},
		{"one target", 0, 100, "account:12", newestFirst([]admin.AuditEntry{all[1], all[3], all[5]})},
		{"one target, paged", all[5].ID, 1, "account:12", []int64{all[3].ID}},
		{"another target", 0, 2, "fds_aaaaaaaa", []int64{all[6].ID, all[4].ID}},
		{"no such target", 0, 100, "user:1", []int64{}},
	} {
		es, err := s.Audit(ctx, tc.before, tc.limit, tc.target)
		if err != nil || fmt.Sprint(auditIDs(es)) != fmt.Sprint(tc.want) {
			t.Errorf("%s: Audit(%d, %d, %q) = %v, %v; want %v", tc.name, tc.before, tc.limit, tc.target, auditIDs(es), err, tc.want)
		}
	}
	if es, _ := s.Audit(ctx, 0, 1, ""); len(es) != 1 || es[0] != all[6] {
		t.Errorf("the newest entry reads back as %+v, want %+v", es, all[6])
	}
	if _, err := s.Audit(ctx, 0, 0, ""); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("a page of 0 entries: %v, want ErrInvalid", err)
	}
	for _, bad := range []admin.AuditEntry{{Action: "key.suspend"}, {Actor: "cli"}, {Actor: " ", Action: "x"}} {
		if _, err := s.AppendAudit(ctx, bad); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("AppendAudit(%+v): %v, want ErrInvalid", bad, err)
		}
	}
	// Without At, the store's clock stamps it.
	e, err := s.AppendAudit(ctx, admin.AuditEntry{Actor: admin.ActorSystem, Action: "key.suspend"})
	if err != nil || !e.At.Equal(c.Now().Truncate(time.Millisecond)) || e.ID <= all[6].ID {
		t.Errorf("an entry without At = %+v, %v; want it stamped now, after the others", e, err)
	}
}

// testAuditAppendOnly: SQL from outside the store cannot change or
// delete an entry either.
func testAuditAppendOnly(t *testing.T, s admin.Store, exec func(string) error) {
	c := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	e := appendAudit(t, s, c, "key.revoke", "fds_aaaaaaaa")
	for _, q := range []string{
		`UPDATE audit_log SET reason = 'nothing happened'`,
		`UPDATE audit_log SET actor = 'someone else' WHERE id = ` + fmt.Sprint(e.ID),
		`DELETE FROM audit_log`,
		`DELETE FROM audit_log WHERE id = ` + fmt.Sprint(e.ID),
	} {
		if err := exec(q); err == nil {
			t.Errorf("%s: the database allowed it", q)
		}
	}
	es, err := s.Audit(context.Background(), 0, 10, "")
	if err != nil || len(es) != 1 || es[0] != e {
		t.Fatalf("the audit after refused changes = %+v, %v; want %+v as it was", es, err, e)
	}
}
