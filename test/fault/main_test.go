package fault

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// flushInterval is the meter's documented flush interval (meter.Options'
// default, which serve uses): the most usage a hard crash may lose.
const flushInterval = 5 * time.Second

var (
	enabled = os.Getenv("FRAGRANCE_TEST_FAULT") == "1"
	bin     string // the built binary
	root    string // the module's root
)

func TestMain(m *testing.M) {
	if !enabled {
		os.Exit(m.Run()) // every test skips with the reason
	}
	dir, err := os.MkdirTemp("", "fragrance-fault-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	root, _ = filepath.Abs(filepath.Join("..", ".."))
	bin = filepath.Join(dir, "fragrance")
	build := exec.Command("go", "build", "-o", bin, "./cmd/fragrance")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/fragrance: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needFault skips unless the fault suite was asked for.
func needFault(t *testing.T) {
	t.Helper()
	if !enabled {
		t.Skip("the fault suite runs with FRAGRANCE_TEST_FAULT=1 (it builds the binary, starts Redis, mounts a tmpfs)")
	}
}

// smallCatalogue fills the databases of the tests quickly.
func smallCatalogue() string {
	return filepath.Join(root, "cmd", "fragrance", "testdata", "catalogue-small.jsonl.gz")
}

// syncBuffer is a bytes.Buffer safe for a writing process and the
// reading test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// service is a running `fragrance serve`.
type service struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	stderr *syncBuffer
	exited chan struct{}
}

// startService runs the binary's serve on a free loopback port with the
// small catalogue and no image workers, and waits for /healthz 200.
func startService(t *testing.T, args ...string) *service {
	t.Helper()
	s := &service{t: t, stderr: &syncBuffer{}, exited: make(chan struct{})}
	// Level warn keeps the access log out (it would be most of the
	// output), and with it the line naming the port: the port is chosen
	// here.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s.base = "http://" + addr
	all := append([]string{"serve", "--addr", addr, "--image-workers", "0", "--image-queue-all=false",
		"--seed-file", smallCatalogue(), "--log-level", "warn", "--metrics-token", metricsToken}, args...)
	s.cmd = exec.Command(bin, all...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("serve's log (last 4 kB):\n%s", lastBytes(s.stderr.String(), 4096))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if code, _ := getJSON(s.base+"/healthz", ""); code == http.StatusOK {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited at start: %v\n%s", s.cmd.ProcessState, s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready in 60 s\n%s", s.stderr)
		}
	}
}

// stop ends the service gracefully (SIGTERM) and wants a clean exit.
func (s *service) stop() {
	s.t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no exit 30 s after SIGTERM\n%s", lastBytes(s.stderr.String(), 4096))
	}
	if !s.cmd.ProcessState.Success() {
		s.t.Errorf("serve exited with %v after SIGTERM\n%s", s.cmd.ProcessState, lastBytes(s.stderr.String(), 4096))
	}
}

// kill ends the service with SIGKILL: nothing of it runs after this.
func (s *service) kill() {
	s.t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		s.t.Fatal(err)
	}
	<-s.exited
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// cli runs a fragrance command and returns its standard output.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cliErr(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func cliErr(args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("fragrance %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return string(out), nil
}

// createKey makes a key on db and returns it and its prefix.
func createKey(t *testing.T, db, tier string, extra ...string) (key, prefix string) {
	t.Helper()
	// Only serve, import and migrate create a database; a key may be made
	// before the first serve, so migrate (idempotent) first.
	cli(t, "migrate", "--db", db)
	out := cli(t, append([]string{"keys", "create", "--db", db, "--tier", tier, "--email", "fault@example.com"}, extra...)...)
	f := strings.Fields(out)
	if len(f) == 0 {
		t.Fatalf("keys create printed nothing")
	}
	key = f[len(f)-1]
	pk, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatalf("keys create printed %q: %v", key, err)
	}
	return key, pk.Prefix
}

// unlimitedKey is an enterprise key whose limits never bind in a test.
func unlimitedKey(t *testing.T, db string) (key, prefix string) {
	return createKey(t, db, "enterprise", "--per-minute", "100000000", "--per-day", "2000000000")
}

var dayRowRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\s`)
var okCountRE = regexp.MustCompile(`\b2xx (\d+)`)

// counted2xx is the key's 2xx requests the store holds, read with
// `fragrance keys usage` (all days shown).
func counted2xx(t *testing.T, db, prefix string) int64 {
	t.Helper()
	out := cli(t, "keys", "usage", "--db", db, "--days", "2", prefix)
	var n int64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if !dayRowRE.MatchString(sc.Text()) {
			continue
		}
		if m := okCountRE.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			n += v
		}
	}
	return n
}

// getJSON is one GET with an optional key; it returns the status and the
// decoded body (nil when not JSON), or status 0 when no answer came.
func getJSON(url, key string) (int, map[string]any) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, nil
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}

// health is /healthz's components (store, limiter).
func health(t *testing.T, base string) map[string]string {
	t.Helper()
	code, h := getJSON(base+"/healthz", "")
	out := map[string]string{"status": strconv.Itoa(code)}
	if comps, ok := h["components"].(map[string]any); ok {
		for k, v := range comps {
			out[k], _ = v.(string)
		}
	}
	return out
}

// metricsToken opens /metrics on the main listener (it is served nowhere
// without --metrics-token or --metrics-addr).
const metricsToken = "fault-suite-metrics-token"

// metric reads one series of /metrics (0 when absent).
func metric(t *testing.T, base, series string) float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %q", series, v)
			}
			return f
		}
	}
	return 0
}

const (
	flushOK    = `fragrance_usage_flushes_total{result="ok"}`
	flushError = `fragrance_usage_flushes_total{result="error"}`
)

// waitFor polls cond every 100 ms for at most limit and returns how long
// it took; it fails the test when cond never held.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

// waitCounted waits until the store holds want 2xx for prefix (the meter
// writes every flushInterval), and fails when it holds a different number
// after three intervals.
func waitCounted(t *testing.T, db, prefix string, want int64) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got := counted2xx(t, db, prefix)
		if got == want {
			return time.Since(start)
		}
		if got > want {
			t.Fatalf("%s: %d counted, more than the %d admitted", prefix, got, want)
		}
		if time.Since(start) > 3*flushInterval {
			t.Fatalf("%s: %d counted %s after the load, %d admitted: %d lost", prefix, got, time.Since(start).Round(time.Second), want, want-got)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// unknownKeyRefused checks that a well-formed key no store holds, and a
// malformed one, are never admitted; it returns the first's status.
func unknownKeyRefused(t *testing.T, base, when string) int {
	t.Helper()
	k, err := apikey.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	code, body := getJSON(base+"/api/perfumes?limit=1", k)
	if code != http.StatusUnauthorized && code != http.StatusServiceUnavailable {
		t.Errorf("%s: an unknown key answered %d %v; want 401 (store answers) or 503 (store unknown)", when, code, body)
	}
	// The last character is the checksum's: another one makes the key
	// malformed (the same one, 1 time in 62, left it a valid key).
	last := "x"
	if strings.HasSuffix(k, last) {
		last = "y"
	}
	if mc, body := getJSON(base+"/api/perfumes?limit=1", k[:len(k)-1]+last); mc != http.StatusUnauthorized {
		t.Errorf("%s: a malformed key answered %d %v; want 401", when, mc, body)
	}
	return code
}

// integrityOK runs PRAGMA integrity_check on a SQLite file (read-only,
// beside whatever has it open).
func integrityOK(t *testing.T, path string) {
	t.Helper()
	db := openSQLite(t, path)
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		t.Fatalf("integrity_check %s: %v", path, err)
	}
	if res != "ok" {
		t.Fatalf("integrity_check %s: %s", path, res)
	}
}

// perfumeRows counts the perfumes table of a SQLite file.
func perfumeRows(t *testing.T, path string) int64 {
	t.Helper()
	var n int64
	if err := openSQLite(t, path).QueryRow("SELECT count(*) FROM perfumes").Scan(&n); err != nil {
		t.Fatalf("count perfumes in %s: %v", path, err)
	}
	return n
}

// openSQLite opens a SQLite file as the service does (WAL, a busy
// timeout), one connection, closed when the test ends.
func openSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}
