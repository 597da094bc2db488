package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// target is the service under soak and the keys to drive it with.
type target struct {
	base         string
	pid          int
	key          string   // limits never bind
	limited      []string // free keys, kept at their limits
	metricsURL   string
	metricsToken string
	logPath      string // the server's standard error, when started here
}

// soakMetricsToken opens /metrics on a server this tool starts (the
// service serves it nowhere without --metrics-token or --metrics-addr).
const soakMetricsToken = "soak-metrics-token"

// server is a service this tool started.
type server struct {
	target
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
}

// startServer builds (unless -bin) and starts a service on a new SQLite
// database, with keys for the mix. Its log goes to a file in its
// temporary directory, at level warn (the access log would be the size of
// the soak).
func startServer(ctx context.Context, c *config, stderr io.Writer) (*server, error) {
	dir, err := os.MkdirTemp("", "fragrance-soak-")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, exited: make(chan struct{})}
	bin := c.bin
	if bin == "" {
		bin = filepath.Join(dir, "fragrance")
		fmt.Fprintln(stderr, "soak: building ./cmd/fragrance")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/fragrance")
		build.Dir = moduleRoot()
		if out, err := build.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("go build ./cmd/fragrance: %v\n%s", err, out)
		}
	}
	db := filepath.Join(dir, "soak.db")
	catalogue := c.catalogue
	if !filepath.IsAbs(catalogue) {
		catalogue = filepath.Join(moduleRoot(), catalogue)
	}
	if _, err := os.Stat(catalogue); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("-catalogue: %w", err)
	}
	if _, err := cli(ctx, bin, "import", "--db", db, catalogue); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	key, err := createKey(ctx, bin, db, "enterprise", "--per-minute", "100000000", "--per-day", "2000000000")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.key = key
	for i := 0; i < 3; i++ {
		k, err := createKey(ctx, bin, db, "free")
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.limited = append(s.limited, k)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.logPath = filepath.Join(dir, "serve.log")
	if s.log, err = os.Create(s.logPath); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s.cmd = exec.Command(bin, "serve", "--db", db, "--addr", addr, "--image-workers", "0", "--image-queue-all=false",
		"--log-level", "warn", "--trusted-proxies", "127.0.0.1/32", "--metrics-token", soakMetricsToken)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.log.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	s.pid = s.cmd.Process.Pid
	s.base = "http://" + addr
	s.metricsToken = soakMetricsToken
	if err := s.waitHealthy(60 * time.Second); err != nil {
		s.stop(stderr)
		return nil, err
	}
	fmt.Fprintf(stderr, "soak: server pid %d on %s, database %s, log %s\n", s.pid, s.base, db, s.logPath)
	return s, nil
}

func (s *server) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("serve exited at start; its log: %s", tail(s.logPath))
		default:
		}
		if resp, err := http.Get(s.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("serve not healthy within %s; its log: %s", limit, tail(s.logPath))
}

// stop ends the server with SIGTERM (graceful: usage is flushed) and
// removes its directory, keeping the log when it holds warnings.
func (s *server) stop(stderr io.Writer) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		fmt.Fprintln(stderr, "soak: server did not stop 30 s after SIGTERM; killing it")
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.log.Close()
	if st := s.cmd.ProcessState; st != nil && !st.Success() {
		fmt.Fprintf(stderr, "soak: server exited with %s\n", st)
	}
	if warn := logLevels(s.logPath); len(warn) > 0 {
		keep := filepath.Join(os.TempDir(), fmt.Sprintf("fragrance-soak-%d.log", s.pid))
		if err := os.Rename(s.logPath, keep); err == nil {
			fmt.Fprintf(stderr, "soak: server log lines by level %v kept in %s\n", warn, keep)
		}
	}
	os.RemoveAll(s.dir)
}

// logLevels counts the server's log lines by level (text format), but
// for /healthz's 503s while it starts.
func logLevels(path string) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "route=healthz") && strings.Contains(sc.Text(), "status=503") {
			continue // the readiness probes of the start
		}
		for _, lv := range []string{"level=WARN", "level=ERROR"} {
			if strings.Contains(sc.Text(), lv) {
				out[strings.TrimPrefix(lv, "level=")]++
			}
		}
	}
	return out
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// cli runs a fragrance command and returns its standard output.
func cli(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("fragrance %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return string(out), nil
}

// createKey creates a key and returns it (the last line `keys create`
// prints).
func createKey(ctx context.Context, bin, db, tier string, extra ...string) (string, error) {
	args := append([]string{"keys", "create", "--db", db, "--tier", tier, "--email", "soak@example.com"}, extra...)
	out, err := cli(ctx, bin, args...)
	if err != nil {
		return "", err
	}
	lines := strings.Fields(strings.TrimSpace(out))
	if len(lines) == 0 {
		return "", fmt.Errorf("keys create printed nothing")
	}
	return lines[len(lines)-1], nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// moduleRoot is the directory of go.mod above the working directory (go
// run and go test both run inside the module).
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
