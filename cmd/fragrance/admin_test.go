package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// runIn runs a command with stdin and returns its stdout, stderr and error.
func runIn(stdin string, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, noEnv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

// openAdmin opens the database for a look behind the commands.
func openAdmin(t *testing.T, db string) backend {
	t.Helper()
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// TestAdminUsers drives the admin commands as an operator would, and
// reads the audit log they leave.
func TestAdminUsers(t *testing.T) {
	ctx := context.Background()
	db := newDB(t, "admin.db")

	// A generated password, shown once, on the last line.
	out, errOut, err := runIn("", "admin", "create-user", "--db", db, "--email", " Ops@Example.COM ")
	if err != nil {
		t.Fatal(err, errOut)
	}
	pw := lastLine(out)
	if admin.CheckNewPassword(pw) != nil || strings.Count(out, pw) != 1 || !strings.Contains(errOut, "shown only once") ||
		!strings.Contains(out, "Ops@example.com") {
		t.Fatalf("create-user printed %q (stderr %q); want the admin and a password once", out, errOut)
	}
	store := openAdmin(t, db)
	ops, err := store.AdminUserByEmail(ctx, "Ops@example.com")
	if err != nil || !admin.CheckPassword(ops.PasswordHash, pw) || ops.Disabled {
		t.Fatalf("the admin made = %+v, %v; want one whose password is the one printed", ops, err)
	}

	// A password given on standard input is not printed.
	given := "a long enough passphrase"
	out, errOut, err = runIn(given+"\r\n", "admin", "create-user", "--db", db, "--email", "dev@example.com", "--password-stdin")
	if err != nil || strings.Contains(out, given) || strings.Contains(errOut, given) {
		t.Fatalf("create-user --password-stdin: %v, printed %q %q", err, out, errOut)
	}
	dev, err := store.AdminUserByEmail(ctx, "dev@example.com")
	if err != nil || !admin.CheckPassword(dev.PasswordHash, given) {
		t.Fatalf("the admin made from stdin = %+v, %v; want the password given, without its line end", dev, err)
	}

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"create-user", "--email", "dev@example.com"}, "an admin already"},
		{"short pw\n", []string{"create-user", "--email", "new@example.com", "--password-stdin"}, "shorter than 12"},
		{"one line\nand another one\n", []string{"create-user", "--email", "new@example.com", "--password-stdin"}, "one line"},
		{"", []string{"create-user", "--email", "not an address"}, "not an email address"},
		{"", []string{"disable-user", "--email", "nobody@example.com"}, "no admin has the email nobody@example.com"},
		{"", []string{"reset-password", "--email", "nobody@example.com"}, "no admin has the email"},
	} {
		_, _, err := runIn(tc.stdin, append([]string{"admin"}, append(tc.args, "--db", db)...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("admin %s: %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if _, err := store.AdminUserByEmail(ctx, "new@example.com"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a refused password made an admin: %v", err)
	}

	// Disabling signs the admin out everywhere.
	sessionHash := strings.Repeat("ab", 32)
	if err := store.CreateAdminSession(ctx, admin.Session{Hash: sessionHash, UserID: ops.ID, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if got := runCmd(t, "admin", "disable-user", "--db", db, "--email", "Ops@example.com", "--reason", "left the team"); !strings.Contains(got, "disabled") {
		t.Fatalf("disable-user: %q", got)
	}
	if _, _, err := store.TouchAdminSession(ctx, sessionHash, time.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a disabled admin's session: %v, want it ended", err)
	}
	if got := runCmd(t, "admin", "disable-user", "--db", db, "--email", "Ops@example.com"); !strings.Contains(got, "disabled already") {
		t.Fatalf("disabling twice: %q", got)
	}
	list := strings.Split(strings.TrimSpace(runCmd(t, "admin", "list-users", "--db", db)), "\n")
	if len(list) != 3 || !strings.Contains(list[0], "EMAIL") || !strings.Contains(list[1], "Ops@example.com") || !strings.Contains(list[1], "disabled") ||
		!strings.Contains(list[2], "dev@example.com") || !strings.Contains(list[2], "enabled") {
		t.Fatalf("list-users:\n%s", strings.Join(list, "\n"))
	}
	if got := runCmd(t, "admin", "enable-user", "--db", db, "--email", "Ops@example.com"); !strings.Contains(got, "enabled") {
		t.Fatalf("enable-user: %q", got)
	}

	// A reset password replaces the old one and ends the sessions; the
	// second factor stays until reset-totp.
	ops, _ = store.AdminUserByEmail(ctx, "Ops@example.com")
	ops.TOTPSecret, ops.RecoveryHashes = admin.NewTOTPSecret(), []string{"h1", "h2"}
	if _, err := store.UpdateAdminUser(ctx, ops); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateAdminSession(ctx, admin.Session{Hash: sessionHash, UserID: ops.ID, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	out, _, err = runIn("", "admin", "reset-password", "--db", db, "--email", "Ops@example.com")
	if err != nil {
		t.Fatal(err)
	}
	newPW := lastLine(out)
	reset, _ := store.AdminUserByEmail(ctx, "Ops@example.com")
	if newPW == pw || reset.PasswordHash == ops.PasswordHash || !admin.CheckPassword(reset.PasswordHash, newPW) ||
		reset.TOTPSecret != ops.TOTPSecret || len(reset.RecoveryHashes) != 2 {
		t.Fatalf("after reset-password: %+v, printed %q; want the new password, the second factor kept", reset, out)
	}
	if _, _, err := store.TouchAdminSession(ctx, sessionHash, time.Now()); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("a session after reset-password: %v, want it ended", err)
	}
	runCmd(t, "admin", "reset-totp", "--db", db, "--email", "Ops@example.com")
	if u, _ := store.AdminUserByEmail(ctx, "Ops@example.com"); u.TOTPSecret != "" || u.RecoveryHashes != nil || u.PasswordHash != reset.PasswordHash {
		t.Fatalf("after reset-totp: %+v; want no second factor, the password kept", u)
	}
	if got := runCmd(t, "admin", "reset-totp", "--db", db, "--email", "Ops@example.com"); !strings.Contains(got, "no second factor") {
		t.Fatalf("reset-totp twice: %q", got)
	}

	// Every change is in the audit log, done by the command line.
	entries, err := store.Audit(ctx, 0, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Actor != admin.ActorCLI || e.At.IsZero() {
			t.Errorf("entry %+v: want actor cli and a time", e)
		}
		got = append(got, fmt.Sprintf("%s %s %s", e.Action, e.Target, e.Reason))
	}
	o, d := fmt.Sprint("user:", ops.ID), fmt.Sprint("user:", dev.ID)
	want := []string{"user.create " + o + " ", "user.create " + d + " ", "user.disable " + o + " left the team", "user.enable " + o + " ",
		"user.password_reset " + o + " ", "user.totp_reset " + o + " "}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("audit log (oldest first):\n%q\nwant\n%q", got, want)
	}
}

func TestAdminRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.db")
	for _, args := range [][]string{
		{"admin"},
		{"admin", "frobnicate"},
		{"admin", "create-user", "--db", missing},
		{"admin", "create-user", "--db", missing, "--email", "ops@example.com"},
		{"admin", "list-users", "--db", missing},
		{"admin", "list-users", "--db", missing, "extra"},
		{"admin", "disable-user", "--db", missing, "--email", "ops@example.com", "extra"},
	} {
		if _, _, err := runIn("", args...); err == nil {
			t.Errorf("fragrance %s succeeded", strings.Join(args, " "))
		}
	}
	if _, _, err := runIn("", "admin", "reset-totp", "--db", missing); !errors.Is(err, errUsage) {
		t.Errorf("reset-totp without --email: %v, want a usage error", err)
	}
	for _, args := range [][]string{{"admin", "--help"}, {"admin", "create-user", "--help"}, {"admin", "reset-password", "--help"}} {
		out, _, err := runIn("", args...)
		if err != nil || out == "" {
			t.Errorf("fragrance %s: %v, help %q", strings.Join(args, " "), err, out)
		}
	}
	help, _, _ := runIn("", "admin", "--help")
	for _, name := range []string{"create-user", "list-users", "disable-user", "enable-user", "reset-password", "reset-totp"} {
		if !strings.Contains(help, "  "+name+" ") {
			t.Errorf("admin --help lacks %s:\n%s", name, help)
		}
	}
	if top, _, _ := runIn("", "--help"); !strings.Contains(top, "  admin ") {
		t.Errorf("fragrance --help lacks admin:\n%s", top)
	}
}
