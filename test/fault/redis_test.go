package fault

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// redisServer is a redis-server of the test's own, never the shared one:
// this one gets killed.
type redisServer struct {
	t    *testing.T
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedis starts redis-server on port (0: a free one) without
// persistence (as the service's deploy files ran it when the issue was
// filed) and waits for PONG.
func startRedis(t *testing.T, dir string, port int) *redisServer {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis fault needs one of its own to kill")
	}
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	r := &redisServer{t: t, port: port, dir: dir, done: make(chan struct{})}
	r.cmd = exec.Command(path, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(r.kill)
	waitFor(t, "our redis-server to answer PING", 10*time.Second, r.ping)
	return r
}

// url is the service's --redis.
func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) ping() bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprint(c, "PING\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.HasPrefix(line, "+PONG")
}

// kill is kill -9 (idempotent).
func (r *redisServer) kill() {
	r.cmd.Process.Kill()
	<-r.done
}

// TestRedisKilled: the service's Redis is killed with SIGKILL under load
// and restarted (empty: no persistence) on the same port. The service
// keeps answering (the in-process shadow limiter decides alone and
// /healthz says so), a key at its limit is never admitted beyond it on
// this replica (the shadow remembers what it admitted), and once Redis is
// back the limiter returns to it by itself; every admitted request is
// counted.
func TestRedisKilled(t *testing.T) {
	needFault(t)
	dir := t.TempDir()
	redis := startRedis(t, dir, 0)
	db := filepath.Join(dir, "fragrance.db")
	keyE, prefixE := unlimitedKey(t, db)
	const perMinute = 30
	keyL, _ := createKey(t, db, "free", "--per-minute", fmt.Sprint(perMinute), "--per-day", "100000")
	svc := startService(t, "--db", db, "--redis", redis.url())
	if h := health(t, svc.base); h["limiter"] == "" || strings.Contains(h["limiter"], "degraded") {
		t.Fatalf("healthz with Redis up: %v", h)
	}
	firstL := time.Now()
	okL := 0
	limitedCalls := func(n int) (ok, refused int) {
		for i := 0; i < n; i++ {
			code, body := getJSON(svc.base+"/api/perfumes?limit=1", keyL)
			switch code {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				refused++
			default:
				t.Errorf("key at its limit answered %d %v", code, body)
			}
		}
		okL += ok
		return ok, refused
	}
	if ok, _ := limitedCalls(20); ok != 20 {
		t.Fatalf("Redis up: %d of the first 20 requests of a %d/min key admitted", ok, perMinute)
	}

	l := startLoad(svc.base, keyE, 3, 2*time.Millisecond)
	time.Sleep(time.Second)
	redis.kill()
	killedAt := time.Now()
	healthDown := waitFor(t, "healthz to show the limiter degraded", 15*time.Second, func() bool {
		return strings.Contains(health(t, svc.base)["limiter"], "degraded")
	})
	okDown, refusedDown := limitedCalls(20)
	t.Logf("Redis down: the %d/min key had %d admitted before; now %d more admitted, %d refused", perMinute, 20, okDown, refusedDown)
	time.Sleep(2 * time.Second)

	redis = startRedis(t, dir, redis.port) // empty: its windows are gone
	restartedAt := time.Now()
	back := waitFor(t, "the limiter to return to Redis by itself", 30*time.Second, func() bool {
		h := health(t, svc.base)["limiter"]
		return h != "" && !strings.Contains(h, "degraded")
	})
	okBack, refusedBack := limitedCalls(10)
	time.Sleep(2 * time.Second)
	l.stop()
	as := l.snapshot()
	t.Logf("killed Redis: healthz degraded after %s; key E during the outage %s; Redis restarted, the limiter back on it after %s; key E after %s; fallbacks %v",
		healthDown.Round(10*time.Millisecond), byStatus(as, killedAt, restartedAt), back.Round(10*time.Millisecond),
		byStatus(as, restartedAt, time.Now()), metric(t, svc.base, "fragrance_ratelimit_redis_fallbacks_total"))
	t.Logf("Redis back (empty): the %d/min key got %d more admitted, %d refused", perMinute, okBack, refusedBack)
	if since := time.Since(firstL); since < time.Minute && okL > perMinute {
		t.Errorf("the %d/min key was admitted %d times in %s across the Redis outage: over-admitted", perMinute, okL, since.Round(time.Second))
	}
	for _, a := range as {
		if a.status != http.StatusOK {
			t.Errorf("key E (limits never bind) answered %s across the outage; the limiter's fallback should answer for it",
				byStatus(as, time.Time{}, time.Now()))
			break
		}
	}
	if got := metric(t, svc.base, "fragrance_ratelimit_redis_up"); got != 1 {
		t.Errorf("fragrance_ratelimit_redis_up = %v after Redis came back", got)
	}
	waitCounted(t, db, prefixE, admitted(as))
	svc.stop()
	integrityOK(t, db)
}
