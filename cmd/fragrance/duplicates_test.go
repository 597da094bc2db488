package main

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/web/dashboard"
)

// TestDuplicateAccountsReported: accounts that share an address (as the
// migration that folds addresses finds them) are listed by "admin
// duplicate-accounts" and said in serve's log, by number.
func TestDuplicateAccountsReported(t *testing.T) {
	ctx := context.Background()
	db := newDB(t, "dups.db")
	if out, _, err := runIn("", "admin", "duplicate-accounts", "--db", db); err != nil || !strings.Contains(out, "no two accounts share an address") {
		t.Fatalf("duplicate-accounts of none = %q, %v", out, err)
	}
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO accounts (id, email, email_key, created_at) VALUES (1, 'bob@example.com', 'bob@example.com', 1772366400000)`,
		`INSERT INTO accounts (id, email, email_key, created_at, duplicate_of, disabled) VALUES (2, 'Bob@example.com', 'bob@example.com', 1772370000000, 1, 1)`,
		`INSERT INTO accounts (id, email, email_key, created_at) VALUES (3, 'carol@example.com', 'carol@example.com', 1772370000000)`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	out, _, err := runIn("", "admin", "duplicate-accounts", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "1 ") || !strings.Contains(lines[2], "Bob@example.com") ||
		!strings.Contains(lines[2], "disabled") || strings.Contains(out, "carol") {
		t.Fatalf("duplicate-accounts printed\n%s", out)
	}
	var log bytes.Buffer
	logDuplicateAccounts(ctx, openAdmin(t, db), slog.New(slog.NewTextHandler(&log, nil)))
	if got := log.String(); strings.Count(got, "share an address") != 1 || !strings.Contains(got, "accounts=\"[1 2]\"") || strings.Contains(got, "bob@") {
		t.Errorf("serve's log says\n%s", got)
	}
}

// TestPasswordChecks: a quarter of the memory limit in argon2id checks,
// from one to four; without a limit, the dashboard's default.
func TestPasswordChecks(t *testing.T) {
	for limit, want := range map[int64]int{
		350 << 20:     1,
		10 << 20:      1,
		512 << 20:     2,
		1 << 30:       4,
		16 << 30:      4,
		math.MaxInt64: dashboard.DefaultPasswordChecks,
	} {
		if got := passwordChecks(limit); got != want {
			t.Errorf("passwordChecks(%d MiB) = %d, want %d", limit>>20, got, want)
		}
	}
	if admin.PasswordMemory != 64<<20 {
		t.Errorf("admin.PasswordMemory = %d", admin.PasswordMemory)
	}
}
