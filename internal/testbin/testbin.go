// Package testbin builds the real fragrance binary and runs `fragrance
// serve` as a process, for the suites that drive it from outside: the
// browser tests and the MCP client test (tests only).
package testbin

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Build builds ./cmd/fragrance into dir and returns the binary's path.
func Build(t testing.TB, dir string) string {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("find the module: %v", err)
	}
	bin := filepath.Join(dir, "fragrance")
	build := exec.Command("go", "build", "-o", bin, "./cmd/fragrance")
	build.Dir = strings.TrimSpace(string(root))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// listening finds the main listener's address in serve's text log.
var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// Serve runs `bin serve --addr 127.0.0.1:0 --image-workers 0` with more
// args, and returns its base URL once /healthz answers 200 (a new database
// is filled with the bundled catalogue first), and the process, which is
// interrupted and waited for when the test ends.
func Serve(t testing.TB, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--image-workers", "0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not say where it listens")
	}
	for deadline := time.Now().Add(180 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base, cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not become healthy")
		}
	}
}
