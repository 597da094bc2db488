package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// proxyMode is how a tcpProxy treats connections.
type proxyMode int

const (
	// forwarding passes bytes both ways.
	forwarding proxyMode = iota
	// refusing is a database that is down or restarting: forwarded
	// connections are closed, new ones are accepted and closed at once.
	refusing
	// silent is a network partition: connections stay open and nothing
	// gets through, so only timeouts end the waits.
	silent
)

// tcpProxy forwards connections to a target and can cut them off: the
// shared PostgreSQL of the tests cannot be stopped, so the service is put
// behind this and the database "goes away" for it alone.
type tcpProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  proxyMode
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// startProxy listens on a loopback port and forwards to target until the
// test ends.
func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.set(refusing)
		p.wg.Wait()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *tcpProxy) Addr() string { return p.ln.Addr().String() }

// set changes the mode. Every connection open ends, except when a
// partition starts: those go silent. (A connection that dropped bytes in
// a partition cannot resume, so it ends when the partition does.)
func (p *tcpProxy) set(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m != silent {
		for c := range p.conns {
			c.Close()
		}
	}
	p.mode = m
}

func (p *tcpProxy) current() proxyMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

func (p *tcpProxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return // listener closed at the end of the test
		}
		switch p.current() {
		case refusing:
			in.Close()
		case silent:
			if p.track(silent, in) {
				p.wg.Add(1)
				go p.pipe(io.Discard, in)
			}
		default:
			out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil {
				in.Close()
				continue
			}
			if p.track(forwarding, in, out) {
				p.wg.Add(2)
				go p.pipe(in, out)
				go p.pipe(out, in)
			}
		}
	}
}

// track registers connections opened in mode m, or closes them when the
// mode changed meanwhile.
func (p *tcpProxy) track(m proxyMode, cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		if p.mode != m {
			c.Close()
		} else {
			p.conns[c] = struct{}{}
		}
	}
	return p.mode == m
}

// pipe copies src to dst, dropping what it reads while the proxy is
// silent; when src ends, both end.
func (p *tcpProxy) pipe(dst io.Writer, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && p.current() != silent {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	src.Close()
	p.mu.Lock()
	delete(p.conns, src)
	if c, ok := dst.(net.Conn); ok {
		c.Close()
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

// viaProxy is dsn with its host replaced by addr.
func viaProxy(t *testing.T, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// pgTarget is the host:port of FRAGRANCE_TEST_POSTGRES.
func pgTarget(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() == "" {
		t.Fatalf("FRAGRANCE_TEST_POSTGRES %q: want postgres://user@host[:port]/db", redactDSN(dsn))
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "5432")
	}
	return u.Host
}

// keyedGet is one keyed GET through client; it returns the status, the
// decoded body and the headers.
func keyedGet(t *testing.T, client *http.Client, url, key string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m, resp.Header
}

// storeState is components.store of /healthz.
func storeState(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	code, h, _ := keyedGet(t, client, base+"/healthz", "")
	comps, _ := h["components"].(map[string]any)
	if code != http.StatusOK || comps == nil {
		t.Fatalf("healthz %d %v", code, h)
	}
	s, _ := comps["store"].(string)
	return s
}

// cacheTTL is access.Config.CacheTTL's default, which serve uses: past it
// a cached key is looked up again, and while the store is away it is
// served stale (for Config.StaleTTL, 5 minutes).
const cacheTTL = 10 * time.Second

// TestFailClosedPostgresDown: with PostgreSQL
// gone, a key not cached answers 503 unavailable (fail closed) while a
// cached one keeps working, /healthz shows the store unreachable, and
// everything comes back by itself when PostgreSQL does, usage included.
// "Gone" is a database that refuses connections (down or restarting) and
// a network partition, where only the service's timeouts end the waits.
func TestFailClosedPostgresDown(t *testing.T) {
	pgBase := os.Getenv("FRAGRANCE_TEST_POSTGRES")
	if pgBase == "" {
		t.Skip("FRAGRANCE_TEST_POSTGRES is needed to cut PostgreSQL away from the service")
	}
	for _, tc := range []struct {
		name    string
		outage  proxyMode
		pastTTL bool // also wait out CacheTTL, for the stale path (not under -short)
	}{
		{"down", refusing, !testing.Short()},
		{"partition", silent, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each has its own schema, proxy and server
			failClosed(t, pgBase, tc.outage, tc.pastTTL)
		})
	}
}

func failClosed(t *testing.T, pgBase string, outage proxyMode, pastTTL bool) {
	direct := freshSchema(t, pgBase)
	proxy := startProxy(t, pgTarget(t, pgBase))
	keyA := lastLine(runCmd(t, "keys", "create", "--db", direct, "--tier", "pro", "--email", "a@example.com"))
	keyB := lastLine(runCmd(t, "keys", "create", "--db", direct, "--tier", "pro", "--email", "b@example.com"))
	pkA, err := apikey.ParseKey(keyA)
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, noEnv, "--db", viaProxy(t, direct, proxy.Addr()), "--metrics-token", testMetricsToken)
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	const path = "/api/perfumes/dior-sauvage"
	servedA := 0
	getA := func(when string) {
		t.Helper()
		if code, body, _ := keyedGet(t, client, base+path, keyA); code != http.StatusOK {
			t.Fatalf("%s: cached key A answered %d %v, want 200", when, code, body)
		}
		servedA++
	}
	refusedB := func(when string) {
		t.Helper()
		code, body, h := keyedGet(t, client, base+path, keyB)
		if code != http.StatusServiceUnavailable || body["code"] != "unavailable" || body["error"] != "Service unavailable" || h.Get("Retry-After") == "" {
			t.Fatalf("%s: uncached key B answered %d %v Retry-After %q; want 503 unavailable", when, code, body, h.Get("Retry-After"))
		}
	}

	getA("before the outage") // key A is now cached
	if s := storeState(t, client, base); s != "ok" {
		t.Fatalf("healthz store %q before the outage", s)
	}

	proxy.set(outage)
	cutAt := time.Now()
	waitFor(t, "healthz to show the store unreachable", func() bool { return storeState(t, client, base) == "unreachable" })
	refusedB("store gone")
	getA("store gone, key fresh in the cache")
	if pastTTL {
		// Past CacheTTL (counted from the outage: key syncs before it may
		// have refreshed the entry) key A is looked up again, the lookup
		// fails, and the entry is served stale: the path that lasts
		// StaleTTL, seen in the cache metrics.
		for time.Since(cutAt) < cacheTTL+1500*time.Millisecond {
			getA("store gone, key past its cache TTL")
			time.Sleep(250 * time.Millisecond)
		}
		if n := metricValue(t, client, base, `fragrance_keycache_lookups_total{result="stale"}`); n < 1 {
			t.Errorf("%v stale key lookups: key A was never served from a stale entry", n)
		}
		refusedB("store still gone, key A served stale")
	}

	proxy.set(forwarding)
	waitFor(t, "key B to be served once PostgreSQL is back", func() bool {
		code, _, _ := keyedGet(t, client, base+path, keyB)
		return code == http.StatusOK
	})
	waitFor(t, "healthz to show the store ok", func() bool { return storeState(t, client, base) == "ok" })
	getA("after the store came back")
	if n := metricValue(t, client, base, `fragrance_usage_flushes_total{result="error"}`); pastTTL && n < 1 {
		t.Errorf("%v failed usage flushes: the outage did not reach the meter", n)
	}

	// The usage counted during the outage was kept and written after it.
	stop()
	if got := meteredByClass(t, direct, pkA.Prefix); got["2xx"] != int64(servedA) || len(got) != 1 {
		t.Errorf("key A metered %v, want 2xx %d", got, servedA)
	}
}

// testMetricsToken is the --metrics-token of the servers whose /metrics
// the tests read.
const testMetricsToken = "test-metrics-token-0123456789"

// metricValue reads one series of /metrics (0 when absent), from a server
// started with --metrics-token testMetricsToken.
func metricValue(t *testing.T, client *http.Client, base, series string) float64 {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testMetricsToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %q", series, v)
			}
			return n
		}
	}
	return 0
}
