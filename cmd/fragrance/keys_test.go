package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestKeysLifecycle drives the keys commands as an operator would.
func TestKeysLifecycle(t *testing.T) {
	db := newDB(t, "keys.db")
	out := runCmd(t, "keys", "create", "--db", db, "--tier", "enterprise", "--per-minute", "1000", "--per-day", "50", "--email", "x@example.com")
	secret := lastLine(out)
	pk, err := apikey.ParseKey(secret)
	if err != nil {
		t.Fatalf("last line %q is not a key: %v\n%s", secret, err, out)
	}
	for _, want := range []string{pk.Prefix, "enterprise", "1000 (key's own)", "50 (key's own)", "x@example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("create output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, secret) != 1 {
		t.Error("the key is printed more than once")
	}

	list := runCmd(t, "keys", "list", "--db", db)
	if !strings.Contains(list, pk.Prefix) || !strings.Contains(list, "active") || strings.Contains(list, secret) {
		t.Fatalf("list:\n%s", list)
	}
	// Flags after the prefix, and the prefix without its scheme.
	if got := runCmd(t, "keys", "suspend", strings.TrimPrefix(pk.Prefix, "fds_"), "--db", db); !strings.Contains(got, "suspended") {
		t.Fatalf("suspend: %s", got)
	}
	if got := runCmd(t, "keys", "resume", "--db", db, pk.Prefix); !strings.Contains(got, "active") {
		t.Fatalf("resume: %s", got)
	}
	if got := runCmd(t, "keys", "limits", "--db", db, "--per-day", "0", pk.Prefix); !strings.Contains(got, "5000000 (tier default)") {
		t.Fatalf("limits: %s", got)
	}
	if got := runCmd(t, "keys", "revoke", "--db", db, pk.Prefix); !strings.Contains(got, "revoked") {
		t.Fatalf("revoke: %s", got)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"keys", "resume", "--db", db, pk.Prefix}, noEnv, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("resuming a revoked key: %v", err)
	}
}

// TestKeysListAccountAndExpiry: a portal key shows its account and when
// it stops working; an operator's key shows neither.
func TestKeysListAccountAndExpiry(t *testing.T) {
	db := newDB(t, "portal.db")
	operator, _ := apikey.ParseKey(lastLine(runCmd(t, "keys", "create", "--db", db)))
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret, err := apikey.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := apikey.ParseKey(secret)
	old, _ := apikey.ParseKey(lastLine(runCmd(t, "keys", "create", "--db", db)))
	_, err = store.CreateKey(ctx, apikey.Key{Prefix: pk.Prefix, Hash: pk.Hash, Tier: apikey.Free, AccountID: 7,
		ExpiresAt: time.Date(2999, 1, 2, 3, 4, 0, 0, time.UTC)})
	if err == nil {
		_, err = store.SetKeyExpiry(ctx, old.Prefix, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(runCmd(t, "keys", "list", "--db", db), "\n")
	if !strings.Contains(lines[0], "ACCOUNT") || !strings.Contains(lines[0], "EXPIRES") {
		t.Fatalf("header %q", lines[0])
	}
	row := func(prefix string) []string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Fields(l)
			}
		}
		t.Fatalf("no line of %s in\n%s", prefix, strings.Join(lines, "\n"))
		return nil
	}
	if f := row(operator.Prefix); f[6] != "-" || f[7] != "-" {
		t.Errorf("operator's key: account %q, expires %q; want - and -", f[6], f[7])
	}
	if f := row(pk.Prefix); f[6] != "7" || f[7] != "2999-01-02T03:04Z" {
		t.Errorf("portal key: account %q, expires %q", f[6], f[7])
	}
	if f := row(old.Prefix); f[7] != "2001-01-01T00:00Z" || f[8] != "(expired)" {
		t.Errorf("expired key: %q", f)
	}
}

func TestKeysUsage(t *testing.T) {
	db := newDB(t, "usage.db")
	secret := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "y@example.com", "--name", "demo"))
	pk, _ := apikey.ParseKey(secret)
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	err = store.RecordUsage(context.Background(), usage.Batch{Hourly: []usage.Count{
		{KeyPrefix: pk.Prefix, Endpoint: "perfumes", StatusClass: "2xx", Start: now.Truncate(time.Hour), Count: 12},
		{KeyPrefix: pk.Prefix, Endpoint: "brands", StatusClass: "4xx", Start: now.Truncate(time.Hour), Count: 3},
	}})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := runCmd(t, "keys", "usage", "--db", db, "--days", "3", pk.Prefix)
	for _, want := range []string{"15 requests", "2xx 12, 4xx 3", "perfumes", "brands", "free", "demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage output lacks %q:\n%s", want, out)
		}
	}
}

func TestKeysRefuses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bad.db")
	for _, args := range [][]string{
		{"keys"},
		{"keys", "frobnicate"},
		{"keys", "revoke", "--db", db},
		{"keys", "create", "--db", db, "--tier", "gold"},
		{"keys", "create", "--db", db, "--email", "nobody"},
		{"keys", "revoke", "--db", db, "fds_AAAAAAAA"},
		{"keys", "usage", "--db", db, "not-a-prefix"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, noEnv, strings.NewReader(""), &stdout, &stderr); err == nil {
			t.Errorf("fragrance %s succeeded", strings.Join(args, " "))
		}
	}
	for _, args := range [][]string{{"keys", "--help"}, {"keys", "create", "--help"}, {"keys", "usage", "--help"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, noEnv, strings.NewReader(""), &stdout, &stderr); err != nil || stdout.Len() == 0 {
			t.Errorf("fragrance %s: %v, help %q", strings.Join(args, " "), err, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"keys"}, noEnv, strings.NewReader(""), &stdout, &stderr)
	if !errors.Is(err, errUsage) {
		t.Errorf("bare keys: %v, want a usage error", err)
	}
}

// TestKeysEnvFallback: every flag has its FRAGRANCE_ variable.
func TestKeysEnvFallback(t *testing.T) {
	db := newDB(t, "env.db")
	env := func(k string) string {
		return map[string]string{"FRAGRANCE_DB": db, "FRAGRANCE_TIER": "pro", "FRAGRANCE_EMAIL": "z@example.com"}[k]
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"keys", "create"}, env, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "pro") {
		t.Fatalf("create with env: %s", stdout.String())
	}
}
