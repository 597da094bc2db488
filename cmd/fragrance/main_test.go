package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"testing"

	"golang.org/x/crypto/argon2"

	"github.com/fragrance-data/fragrance/internal/admin"
)

// productionHashPassword is what the admin commands hash with outside
// the tests.
var productionHashPassword = hashPassword

// runMainEnv, set to 1 in the environment of this package's test binary,
// makes it the fragrance command: TestMain runs main with the arguments
// instead of the tests.
const runMainEnv = "FRAGRANCE_CMD_TEST_RUN_MAIN"

// mainCommand returns the fragrance command with args, in a process of its
// own: this test binary running main, the same code as the built binary
// and without building it again.
func mainCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// TestMain makes testDir, and gives the admin commands cheap password
// hashes for every test of the package: argon2id at 64 MiB and three
// passes costs seconds per hash under the race detector, and these tests
// check the commands, not the hash's cost (internal/admin checks
// HashPassword's parameters).
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	hashPassword = cheapHashPassword
	dir, err := os.MkdirTemp("", "fragrance-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cheapHashPassword is admin.HashPassword with 64 KiB and one pass: a
// PHC string admin.CheckPassword reads like any other, since the hash
// carries its parameters.
func cheapHashPassword(pw string) (string, error) {
	if err := admin.CheckNewPassword(pw); err != nil {
		return "", err
	}
	const memory, passes, threads = 64, 1, 1
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, passes, memory, threads, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, memory, passes, threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// TestAdminCommandsHashWithHashPassword: outside the tests the admin
// commands hash with admin.HashPassword, whose parameters internal/admin
// checks.
func TestAdminCommandsHashWithHashPassword(t *testing.T) {
	if reflect.ValueOf(productionHashPassword).Pointer() != reflect.ValueOf(admin.HashPassword).Pointer() {
		t.Fatal("the admin commands do not hash with admin.HashPassword")
	}
	h, err := cheapHashPassword("a long enough password")
	if err != nil || !admin.CheckPassword(h, "a long enough password") || admin.CheckPassword(h, "another long password") {
		t.Fatalf("a cheap hash %q (%v) does not check like admin.HashPassword's", h, err)
	}
	if _, err := cheapHashPassword("short"); err == nil {
		t.Fatal("the cheap hash accepts a password admin.HashPassword refuses")
	}
}
