package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// answer is what a load test keeps of one response.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

// fetch sends one keyed GET with client and reads the whole answer. err
// is set when no complete answer arrived: with status 0 when none began
// (refused connection, request dropped unanswered), with the status when
// the body broke off.
func fetch(client *http.Client, url, key string) (answer, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("X-API-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return a, fmt.Errorf("%s: %d answer cut short: %w", url, a.status, err)
	}
	json.Unmarshal(raw, &a.body)
	return a, nil
}

// TestFreeKeyLoadOneReplica: 32 concurrent clients
// on one free key, against one replica, get exactly 60 answers 200 in a
// minute; every other request gets the contract's 429 (body and headers),
// and the meter counts both.
func TestFreeKeyLoadOneReplica(t *testing.T) {
	db := newDB(t, "limits.db")
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "free", "--email", "load@example.com"))
	pk, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, noEnv, "--db", db)

	const clients, total = 32, 100
	var (
		sent    atomic.Int64
		mu      sync.Mutex
		answers []answer
		wg      sync.WaitGroup
	)
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for sent.Add(1) <= total {
				a, err := fetch(client, base+"/api/perfumes?limit=1", key)
				if err != nil {
					t.Errorf("request: %v", err)
					return
				}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if took := time.Since(start); took >= 55*time.Second {
		t.Skipf("the load took %s: it did not fit in one minute window, the count means nothing", took)
	}

	remaining := map[int64]int{} // X-RateLimit-Remaining of the admitted answers
	admitted, refused := 0, 0
	for _, a := range answers {
		checkLimitHeaders(t, a)
		n, _ := strconv.ParseInt(a.header.Get("X-RateLimit-Remaining"), 10, 64)
		switch a.status {
		case http.StatusOK:
			admitted++
			remaining[n]++
		case http.StatusTooManyRequests:
			refused++
			checkRateLimited(t, a)
		default:
			t.Errorf("status %d: %v", a.status, a.body)
		}
	}
	if admitted != 60 || refused != total-60 {
		t.Fatalf("admitted %d, refused %d; want exactly 60 and %d", admitted, refused, total-60)
	}
	// One replica decides one request at a time: the admitted answers
	// count down 59, 58, ... 0, each once.
	for n := int64(0); n < 60; n++ {
		if remaining[n] != 1 {
			t.Errorf("X-RateLimit-Remaining %d was answered %d times, want once (all: %v)", n, remaining[n], remaining)
		}
	}

	// The meter counted both kinds, and wrote them on shutdown.
	stop()
	byClass := meteredByClass(t, db, pk.Prefix)
	if byClass["2xx"] != 60 || byClass[usage.ClassRateLimited] != total-60 || len(byClass) != 2 {
		t.Errorf("metered %v; want 2xx 60 and 429 %d", byClass, total-60)
	}
}

// checkLimitHeaders: every authenticated answer, 429 included, carries the
// draft and legacy rate-limit headers of the free tier.
func checkLimitHeaders(t *testing.T, a answer) {
	t.Helper()
	h := a.header
	if got, want := h.Get("RateLimit-Policy"), `"minute";q=60;w=60, "day";q=1000;w=86400`; got != want {
		t.Errorf("%d: RateLimit-Policy %q, want %q", a.status, got, want)
	}
	if rl := h.Get("RateLimit"); !strings.HasPrefix(rl, `"minute";r=`) || !strings.Contains(rl, `, "day";r=`) {
		t.Errorf("%d: RateLimit %q", a.status, rl)
	}
	if h.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("%d: X-RateLimit-Limit %q, want 60 (the minute is nearest to refusing)", a.status, h.Get("X-RateLimit-Limit"))
	}
	if n, err := strconv.Atoi(h.Get("X-RateLimit-Remaining")); err != nil || n < 0 || n > 59 {
		t.Errorf("%d: X-RateLimit-Remaining %q", a.status, h.Get("X-RateLimit-Remaining"))
	}
	now := time.Now().Unix()
	if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err != nil || reset < now-5 || reset > now+65 {
		t.Errorf("%d: X-RateLimit-Reset %q is not a Unix time within the minute (now %d)", a.status, h.Get("X-RateLimit-Reset"), now)
	}
}

// checkRateLimited checks a 429 of the minute window against the contract.
func checkRateLimited(t *testing.T, a answer) {
	t.Helper()
	b := a.body
	if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("429 Content-Type %q", ct)
	}
	if b["error"] != "Rate limit exceeded" || b["title"] != "Rate limit exceeded" || b["code"] != "rate_limited" || b["status"] != 429.0 {
		t.Errorf("429 body %v", b)
	}
	retry, err := strconv.Atoi(a.header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 60 {
		t.Errorf("Retry-After %q, want 1..60 seconds", a.header.Get("Retry-After"))
	}
	if b["retryAfter"] != float64(retry) {
		t.Errorf("retryAfter %v, Retry-After %d: they must agree", b["retryAfter"], retry)
	}
	if ms, ok := b["retryAfterMs"].(float64); !ok || ms <= 0 || ms > float64(retry)*1000 {
		t.Errorf("retryAfterMs %v with retryAfter %d", b["retryAfterMs"], retry)
	}
	if v, ok := b["violatedPolicies"].([]any); !ok || len(v) != 1 || v[0] != "minute" {
		t.Errorf("violatedPolicies %v, want [minute]", b["violatedPolicies"])
	}
	if _, ok := b["dailyRemaining"]; ok {
		t.Error("a minute refusal carries dailyRemaining")
	}
	if rl := a.header.Get("RateLimit"); !strings.HasPrefix(rl, `"minute";r=0;t=`) {
		t.Errorf("429 RateLimit %q, want the minute at r=0", rl)
	}
	if a.header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 X-RateLimit-Remaining %q", a.header.Get("X-RateLimit-Remaining"))
	}
}

// meteredByClass opens the store of a stopped server and sums the daily
// usage of one key by status class.
func meteredByClass(t *testing.T, dsn, prefix string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	store, err := openStore(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC()
	counts, err := store.DailyUsage(ctx, prefix, now.Add(-48*time.Hour), now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	byClass := map[string]int64{}
	for _, c := range counts {
		byClass[c.StatusClass] += c.Count
	}
	return byClass
}

// shutdownLoad is what the clients of a load cut by shutdown saw.
type shutdownLoad struct {
	answered map[string]int64 // complete answers by status class
	lost     []error          // answers begun but not received whole
	refused  int              // requests that got no answer at all
}

// loadThroughShutdown runs clients keep-alive clients on key against base
// until the service stops answering; once answered requests reach
// trigger it calls shutdown, once, from its own goroutine, and waits for
// it. Each client stops at its first request without an answer (the
// listener is closed), so no request is issued after the service has
// gone; loops are bounded by maxPerClient.
func loadThroughShutdown(t *testing.T, base, key string, trigger int64, shutdown func()) shutdownLoad {
	t.Helper()
	const clients, maxPerClient = 16, 2000
	paths := []string{"/api/perfumes?limit=1", "/api/perfumes/dior-sauvage", "/api/brands?q=dior&limit=2", "/api/perfumes?q=dior&limit=3"}
	var (
		mu       sync.Mutex
		res      = shutdownLoad{answered: map[string]int64{}}
		answered atomic.Int64
		once     sync.Once
		stopped  = make(chan struct{})
		wg       sync.WaitGroup
	)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 60 * time.Second}
			defer client.CloseIdleConnections()
			for i := 0; i < maxPerClient; i++ {
				a, err := fetch(client, base+paths[(c+i)%len(paths)], key)
				mu.Lock()
				switch {
				case err == nil:
					res.answered[meter.StatusClass(a.status)]++
				case a.status != 0:
					res.lost = append(res.lost, err)
				default:
					res.refused++
				}
				mu.Unlock()
				if err != nil {
					return
				}
				if answered.Add(1) == trigger {
					once.Do(func() { go func() { shutdown(); close(stopped) }() })
				}
			}
			t.Errorf("client %d made %d requests and the service still answered", c, maxPerClient)
		}(c)
	}
	wg.Wait()
	once.Do(func() { close(stopped); t.Errorf("only %d answers: shutdown never triggered", answered.Load()) })
	<-stopped
	return res
}

// checkMeteredEqualsAnswered: after a graceful stop, the key's metered
// usage equals, class by class, what the clients received.
func checkMeteredEqualsAnswered(t *testing.T, dsn, prefix string, load shutdownLoad) {
	t.Helper()
	for _, err := range load.lost {
		t.Errorf("an answer was cut short by the shutdown (the server metered it, the client never got it): %v", err)
	}
	metered := meteredByClass(t, dsn, prefix)
	var total int64
	for _, n := range load.answered {
		total += n
	}
	t.Logf("answered %v (%d), refused after the stop %d, metered %v", load.answered, total, load.refused, metered)
	if load.answered["2xx"] < 100 {
		t.Errorf("only %d admitted answers: the load did not run", load.answered["2xx"])
	}
	if load.refused == 0 {
		t.Error("no client saw the service go: the shutdown was not mid-load")
	}
	if len(metered) != len(load.answered) {
		t.Errorf("metered %v, answered %v", metered, load.answered)
	}
	for class, n := range load.answered {
		if metered[class] != n {
			t.Errorf("%s: metered %d, answered %d; want them equal", class, metered[class], n)
		}
	}
}

// TestShutdownMetersEveryAnswer: after SIGTERM mid-load, the metered count
// equals the number of admitted requests, in process: main
// turns SIGINT and SIGTERM into the cancellation of run's context
// (signal.NotifyContext), which is what stop does here.
//
// Equality is exact, not a bound: http.Server.Shutdown lets every request
// it has begun finish and answer in full (Connection: close), and drops
// unanswered, unhandled, one read after it began; the Guard meters once
// the handler returns and flushes after Shutdown. So a client that got a
// whole answer was metered, and one that got none was not.
func TestShutdownMetersEveryAnswer(t *testing.T) {
	db := newDB(t, "shutdown.db")
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "enterprise", "--per-minute", "1000000", "--email", "load@example.com"))
	pk, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, noEnv, "--db", db)
	load := loadThroughShutdown(t, base, key, 200, stop)
	checkMeteredEqualsAnswered(t, db, pk.Prefix, load)
}

// TestSIGTERMMetersEveryAnswer is the same with the program in a process
// of its own (the test binary running main, see TestMain) and a real
// SIGTERM, which also checks main's signal wiring and exit status.
func TestSIGTERMMetersEveryAnswer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "sigterm.db")
	runCmd(t, "migrate", "--db", db)
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "enterprise", "--per-minute", "1000000", "--email", "load@example.com"))
	pk, err := apikey.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}

	stderr := &syncBuffer{}
	cmd := mainCommand(t, "serve", "--db", db, "--addr", "127.0.0.1:0", "--image-workers", "0", "--seed-file", smallCatalogue)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var exitErr error
	exited := make(chan struct{})
	go func() { exitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill() // harmless once it has exited
		<-exited
	})
	base := waitListening(t, stderr, exited)

	load := loadThroughShutdown(t, base, key, 200, func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("SIGTERM: %v", err)
		}
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("no exit 30 s after SIGTERM\n%s", stderr)
		}
	})
	select {
	case <-exited:
	default:
		t.Fatal("still running after SIGTERM")
	}
	if exitErr != nil || !strings.Contains(stderr.String(), "msg=stopped") {
		t.Fatalf("after SIGTERM: %v, want a clean exit\n%s", exitErr, stderr)
	}
	checkMeteredEqualsAnswered(t, db, pk.Prefix, load)
}

// waitListening waits for a serve process to log its address and answer
// /healthz 200, and returns its base URL.
func waitListening(t *testing.T, stderr *syncBuffer, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var base string
	for {
		if base == "" {
			if m := listenRE.FindStringSubmatch(stderr.String()); m != nil {
				base = "http://" + m[1]
			}
		}
		if base != "" {
			if resp, err := http.Get(base + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return base
				}
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve exited early\n%s", stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready within 60 s\n%s", stderr)
		}
	}
}
