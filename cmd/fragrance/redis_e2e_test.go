package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
)

// ownRedis is a redis-server of the test's own, on a free port in a temp
// dir, that the test may kill and start again (never the shared one).
type ownRedis struct {
	t    *testing.T
	port int
	dir  string
	args []string // the server's settings
	cmd  *exec.Cmd
}

// startOwnRedis starts a redis-server with settings args (none: no
// persistence), or skips where none is installed.
func startOwnRedis(t *testing.T, args ...string) *ownRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	if len(args) == 0 {
		args = []string{"--save", "", "--appendonly", "no"}
	}
	r := &ownRedis{t: t, port: freePort(t), dir: t.TempDir(), args: args}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *ownRedis) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// start runs redis-server and waits until it answers.
func (r *ownRedis) start() {
	r.t.Helper()
	// Port, address and directory come last, so they win over args.
	r.cmd = exec.Command("redis-server", append(append([]string{}, r.args...),
		"--port", fmt.Sprint(r.port), "--bind", "127.0.0.1", "--dir", r.dir)...)
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, io.Discard
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			r.t.Fatal("own redis-server did not answer")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill stops redis-server at once, as a crash would.
func (r *ownRedis) kill() {
	if r.cmd != nil && r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		r.cmd = nil
	}
}

// freePort returns a TCP port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// serveOutcome starts serve and reports how it ended up: listening (the
// server is then stopped) or exited with an error.
func serveOutcome(t *testing.T, args ...string) (listening bool, err error, log string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--image-workers", "0", "--image-queue-all=false",
			"--seed-file", smallCatalogue}, args...), noEnv, strings.NewReader(""), io.Discard, stderr)
	}()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case err := <-done:
			return false, err, stderr.String()
		case <-deadline:
			t.Fatalf("serve neither listened nor exited\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if listenRE.MatchString(stderr.String()) {
			cancel()
			<-done
			return true, nil, stderr.String()
		}
	}
}

// TestServeRefusesUnreachableRedis: a mistyped --redis must not start a
// replica with limits of its own (N replicas would admit N times the
// limit): serve exits with an error naming the address. (Before, it
// started behind a WARN.)
func TestServeRefusesUnreachableRedis(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	listening, err, log := serveOutcome(t, "--db", filepath.Join(t.TempDir(), "f.db"), "--redis", "redis://:s3cret@"+addr+"/0")
	if listening || err == nil {
		t.Fatalf("serve started with an unreachable --redis\n%s", log)
	}
	if errors.Is(err, errUsage) || exitCode(err) == 0 {
		t.Errorf("exit code %d for %v", exitCode(err), err)
	}
	msg := err.Error()
	if !strings.Contains(msg, addr) || !strings.Contains(msg, "--redis-optional") {
		t.Errorf("error %q should name %s and --redis-optional", msg, addr)
	}
	if strings.Contains(msg+log, "s3cret") {
		t.Errorf("the Redis password is shown: %q", msg)
	}
}

// healthLimiter is /healthz's status and components.limiter.
func healthLimiter(t *testing.T, base string) (code int, status, limiter string) {
	t.Helper()
	code, h, _ := keyedGet(t, http.DefaultClient, base+"/healthz", "")
	comps, _ := h["components"].(map[string]any)
	status, _ = h["status"].(string)
	limiter, _ = comps["limiter"].(string)
	return code, status, limiter
}

// TestServeRedisOptional: with --redis-optional an unreachable Redis
// starts the service degraded, and says so in /healthz and /metrics.
func TestServeRedisOptional(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	base, _, log := startServeLog(t, noEnv, "--db", db, "--redis", "redis://"+addr+"/0", "--redis-optional", "--metrics-token", testMetricsToken)
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), addr) {
		t.Errorf("no WARN naming %s:\n%s", addr, log)
	}
	code, status, limiter := healthLimiter(t, base)
	if code != 200 || status != "degraded" || !strings.HasPrefix(limiter, "degraded: in-process") {
		t.Errorf("healthz = %d, status %q, limiter %q; want 200, degraded, degraded: in-process…", code, status, limiter)
	}
	if v := metricValue(t, http.DefaultClient, base, "fragrance_ratelimit_degraded"); v != 1 {
		t.Errorf("fragrance_ratelimit_degraded = %v, want 1", v)
	}
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "opt@example.com"))
	if code, _, h := keyedGet(t, http.DefaultClient, base+"/api/perfumes?limit=1", key); code != 200 || h.Get("RateLimit") == "" {
		t.Errorf("keyed request while degraded: %d, RateLimit %q", code, h.Get("RateLimit"))
	}
}

// TestRedisLostAtRuntime: Redis dies under a running service. Requests
// keep their limits (each replica's own, in process), /healthz and
// /metrics show the degraded state without waiting for a request, and
// all returns to Redis by itself when it is back.
func TestRedisLostAtRuntime(t *testing.T) {
	r := startOwnRedis(t)
	db := filepath.Join(t.TempDir(), "f.db")
	base, _ := startServe(t, noEnv, "--db", db, "--redis", r.url(), "--metrics-token", testMetricsToken)
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "rt@example.com"))
	if code, status, limiter := healthLimiter(t, base); code != 200 || status != "ok" || limiter != "redis" {
		t.Fatalf("healthz with Redis = %d %q %q", code, status, limiter)
	}
	if v := metricValue(t, http.DefaultClient, base, "fragrance_ratelimit_degraded"); v != 0 {
		t.Fatalf("fragrance_ratelimit_degraded = %v with Redis up", v)
	}
	for i := 0; i < 3; i++ {
		keyedGet(t, http.DefaultClient, base+"/api/perfumes?limit=1", key)
	}

	r.kill()
	waitFor(t, "healthz to show the limiter degraded", func() bool {
		code, status, limiter := healthLimiter(t, base)
		return code == 200 && status == "degraded" && strings.HasPrefix(limiter, "degraded: in-process")
	})
	if v := metricValue(t, http.DefaultClient, base, "fragrance_ratelimit_degraded"); v != 1 {
		t.Errorf("fragrance_ratelimit_degraded = %v with Redis down", v)
	}
	// The in-process limiter still holds what this replica admitted.
	code, _, h := keyedGet(t, http.DefaultClient, base+"/api/perfumes?limit=1", key)
	if code != 200 || !strings.Contains(h.Get("RateLimit"), `"minute";r=56;`) {
		t.Errorf("request with Redis down: %d, RateLimit %q; want 200 and the 4 earlier requests counted", code, h.Get("RateLimit"))
	}

	r.start()
	waitFor(t, "the limiter to return to Redis", func() bool {
		_, status, limiter := healthLimiter(t, base)
		return status == "ok" && limiter == "redis"
	})
	if v := metricValue(t, http.DefaultClient, base, "fragrance_ratelimit_degraded"); v != 0 {
		t.Errorf("fragrance_ratelimit_degraded = %v after Redis came back", v)
	}
}

// deployRedisArgs reads the redis-server arguments of deploy/compose.yaml
// (its "command:" under the redis service, a flow sequence of strings).
func deployRedisArgs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  redis:\n(?:    .*\n)*?    command: (\[.*\])$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("deploy/compose.yaml: no command for the redis service")
	}
	var args []string
	if err := json.Unmarshal(m[1], &args); err != nil || len(args) == 0 || args[0] != "redis-server" {
		t.Fatalf("deploy/compose.yaml: redis command %s: %v", m[1], err)
	}
	if !regexp.MustCompile(`(?m)^  redis:\n(?:    .*\n)*?    volumes: \[redisdata:/data\]$`).Match(b) {
		t.Error("deploy/compose.yaml: the redis service keeps /data on no volume: its AOF would die with the container")
	}
	return args[1:]
}

// TestDeployRedisKeepsWindows runs Redis as deploy/compose.yaml does,
// fills a key's minute window, kills Redis (-9) and starts it again: the
// window must still be full. With the compose file's former settings (no
// AOF, no snapshots) every key got a fresh minute and day.
func TestDeployRedisKeepsWindows(t *testing.T) {
	r := startOwnRedis(t, deployRedisArgs(t)...)
	lim := apikey.Limits{PerMinute: 3, PerDay: 100}
	allow := func() bool {
		t.Helper()
		// A limiter of its own each time: the shadow of a new replica is
		// empty, so only Redis remembers.
		l, err := redislimit.New(context.Background(), redislimit.Options{
			URL: r.url(), Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{}),
		})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.Status().Degraded {
			t.Fatalf("own Redis unreachable: %+v", l.Status())
		}
		d, err := l.Allow(context.Background(), "fds_persist0", lim)
		if err != nil {
			t.Fatal(err)
		}
		return d.Allowed
	}
	for i := 0; i < 3; i++ {
		if !allow() {
			t.Fatalf("request %d refused", i+1)
		}
	}
	// appendfsync everysec: what the compose file promises is that a crash
	// loses at most about a second of writes (up to two while a previous
	// fsync is slow). Give it that, so the kill tests persistence, not the
	// last second.
	time.Sleep(2500 * time.Millisecond)
	r.kill()
	r.start()
	if allow() {
		t.Error("a 4th request in the minute was admitted after Redis restarted: the windows were not persisted")
	}
}
