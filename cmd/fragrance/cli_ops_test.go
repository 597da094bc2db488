package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// runArgs runs the program and returns its error, standard output and
// standard error.
func runArgs(args ...string) (error, string, string) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errb)
	return err, out.String(), errb.String()
}

// TestOnlySomeCommandsCreateADatabase: run where there is no database, the
// commands that read one refuse, non-zero, and leave no file behind; serve,
// import and migrate create it.
func TestOnlySomeCommandsCreateADatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fragrance.db")
	photos := t.TempDir()
	for _, args := range [][]string{
		{"keys", "create", "--db", db, "--email", "a@example.com"},
		{"keys", "list", "--db", db},
		{"export", "--db", db, "--out", filepath.Join(dir, "export.jsonl")},
		{"keys", "revoke", "--db", db, "fds_AbC12345"},
		{"keys", "suspend", "--db", db, "fds_AbC12345"},
		{"keys", "resume", "--db", db, "fds_AbC12345"},
		{"keys", "limits", "--db", db, "--per-day", "5", "fds_AbC12345"},
		{"keys", "usage", "--db", db, "fds_AbC12345"},
		{"keys", "signals", "--db", db},
		{"images", "import", "--db", db, photos},
		{"images", "process", "--db", db},
		{"images", "status", "--db", db},
		{"eval", "--db", db},
		{"backup", "--db", db, "--out", filepath.Join(dir, "backup.db")},
	} {
		err, _, _ := runArgs(args...)
		if err == nil || exitCode(err) == 0 || !strings.Contains(err.Error(), "no database at "+db+" (pass --db)") {
			t.Errorf("fragrance %s with no database: %v", strings.Join(args, " "), err)
		}
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("fragrance %s created %s", strings.Join(args, " "), db)
		}
	}
	if err, _, stderr := runArgs("migrate", "--db", db); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("migrate made no database: %v", err)
	}
	imported := filepath.Join(t.TempDir(), "imported.db")
	if err, _, stderr := runArgs("import", "--db", imported, smallCatalogue); err != nil {
		t.Fatalf("import into a new database: %v\n%s", err, stderr)
	}
}

// TestHelpAndUsageErrors: help asked for goes to standard output with exit
// 0; a usage mistake to standard error with exit 2.
func TestHelpAndUsageErrors(t *testing.T) {
	helps := [][]string{{"--help"}, {"-h"}, {"help"}, {"keys", "--help"}, {"keys", "help"}, {"images", "--help"}}
	for _, c := range commands() {
		helps = append(helps, []string{c.name, "--help"})
	}
	for _, k := range keysCommands() {
		helps = append(helps, []string{"keys", k.name, "--help"})
	}
	for _, k := range adminCommands() {
		helps = append(helps, []string{"admin", k.name, "--help"})
	}
	for _, args := range helps {
		err, stdout, stderr := runArgs(args...)
		if err != nil || !strings.Contains(stdout, "Usage: fragrance") || stderr != "" {
			t.Errorf("fragrance %s: err %v, stdout %q, stderr %q", strings.Join(args, " "), err, stdout, stderr)
		}
	}
	for _, args := range [][]string{{}, {"nope"}, {"keys"}, {"keys", "nope"}, {"serve", "--nope"}, {"keys", "list", "--nope"}, {"images", "process", "--force"}} {
		err, stdout, stderr := runArgs(args...)
		if exitCode(err) != 2 || stdout != "" || !strings.Contains(stderr, "fragrance") {
			t.Errorf("fragrance %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), exitCode(err), stdout, stderr)
		}
	}
}

// TestKeysUsageDaysBound: --days takes what its help says, 1 to 90.
func TestKeysUsageDaysBound(t *testing.T) {
	db := newDB(t, "days.db")
	pk, _ := apikey.ParseKey(lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "d@example.com")))
	for _, days := range []string{"0", "91", "-1"} {
		if err, _, _ := runArgs("keys", "usage", "--db", db, "--days", days, pk.Prefix); err == nil || !strings.Contains(err.Error(), "1 to 90") {
			t.Errorf("--days %s: %v", days, err)
		}
	}
	runCmd(t, "keys", "usage", "--db", db, "--days", "90", pk.Prefix)
	// Checked before the database is looked for.
	if err, _, _ := runArgs("keys", "usage", "--db", filepath.Join(t.TempDir(), "none.db"), "--days", "91", pk.Prefix); err == nil || !strings.Contains(err.Error(), "1 to 90") {
		t.Errorf("--days 91 without a database: %v", err)
	}
}

// TestImagesProcessFlagsHaveEnv: every flag of images process reads its
// FRAGRANCE_ variable, as every other command's flags do.
func TestImagesProcessFlagsHaveEnv(t *testing.T) {
	err, stdout, _ := runArgs("images", "process", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"FRAGRANCE_DB", "FRAGRANCE_IMAGE_DIR", "FRAGRANCE_ALL", "FRAGRANCE_FORCE", "FRAGRANCE_ID", "FRAGRANCE_WORKERS"} {
		if !strings.Contains(stdout, "["+v+"]") {
			t.Errorf("images process --help names no %s:\n%s", v, stdout)
		}
	}
}

// TestKeysNeverEchoASecret runs every keys command with a whole key where
// a prefix is expected, and asserts the secret appears in none of their
// output: only create prints it, once.
func TestKeysNeverEchoASecret(t *testing.T) {
	db := newDB(t, "secret.db")
	err, created, createErr := runArgs("keys", "create", "--db", db, "--email", "s@example.com")
	if err != nil {
		t.Fatal(err, createErr)
	}
	secret := lastLine(created)
	pk, err := apikey.ParseKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	secretPart := secret[len(pk.Prefix):] // what makes it a secret
	if strings.Count(created, secretPart) != 1 || strings.Contains(createErr, secretPart) {
		t.Errorf("create printed the key other than once on stdout:\n%s\n%s", created, createErr)
	}
	typo := secret[:len(secret)-1] + "!"
	for _, k := range keysCommands() {
		if k.name == "create" {
			continue
		}
		for _, arg := range []string{secret, typo, secret + "x", " " + secret} {
			args := []string{"keys", k.name, "--db", db, arg}
			if k.name == "list" || k.name == "signals" {
				args = []string{"keys", k.name, "--db", db, "--nope=" + arg}
			}
			err, stdout, stderr := runArgs(args...)
			all := stdout + stderr
			if err != nil {
				all += err.Error()
			}
			if strings.Contains(all, secretPart) || strings.Contains(all, secretPart[:20]) {
				t.Errorf("keys %s with a whole key printed the secret:\n%s", k.name, all)
			}
		}
	}
	// The whole key is taken for its prefix.
	if out := runCmd(t, "keys", "usage", "--db", db, secret); !strings.Contains(out, pk.Prefix) {
		t.Errorf("keys usage <whole key>: %s", out)
	}
	other := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "t@example.com")) // the first is revoked by now
	otherKey, _ := apikey.ParseKey(other)
	if out := runCmd(t, "keys", "suspend", "--db", db, other); !strings.Contains(out, otherKey.Prefix+": suspended") {
		t.Errorf("keys suspend <whole key>: %s", out)
	}
}
