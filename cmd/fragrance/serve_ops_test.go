package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// logAddr finds the address a listener logged under msg.
func logAddr(t *testing.T, logs, msg string) string {
	t.Helper()
	re := regexp.MustCompile(`msg="?` + msg + `"? addr=(\S+)|"msg":"` + msg + `","addr":"([^"]+)"`)
	m := re.FindStringSubmatch(logs)
	if m == nil {
		t.Fatalf("no %q line in the log:\n%s", msg, logs)
	}
	return m[1] + m[2]
}

// publicURLLines are the "public URL" lines of serve's log, by what they
// are of.
func publicURLLines(t *testing.T, logs string) map[string]string {
	t.Helper()
	out := map[string]string{}
	text := regexp.MustCompile(`msg="public URL" of=(\S+) url=(\S+)`)
	js := regexp.MustCompile(`"msg":"public URL","of":"([^"]+)","url":"([^"]+)"`)
	for _, re := range []*regexp.Regexp{text, js} {
		for _, m := range re.FindAllStringSubmatch(logs, -1) {
			if _, dup := out[m[1]]; dup {
				t.Errorf("two public URL lines of %s", m[1])
			}
			out[m[1]] = m[2]
		}
	}
	return out
}

// slowClientCutOff reports whether a client that sends its request a
// little at a time is disconnected by the server at addr within bound:
// headers never finished (slow-loris), or a body never finished.
func slowClientCutOff(t *testing.T, addr string, slowBody bool, bound time.Duration) bool {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "GET /healthz HTTP/1.1\r\nHost: x\r\n"
	drip := "X-Slow: 1\r\n"
	if slowBody {
		head = "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
		drip = "x"
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := io.WriteString(conn, drip); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(bound))
	_, err = io.Copy(io.Discard, conn) // an answer, if any, then the close
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestListenersCutSlowClients: the main, image and metrics listeners all
// disconnect a client that dribbles its headers or its body. Before, the
// image listener had no read timeout and held such a client for minutes.
// The bound is generous (the timeouts given are under a second) and below
// the defaults (10s for headers): it tells a cut from no cut, and times
// nothing. The body (under the 256 KB net/http drains after an answer)
// must be cut by the read timeout.
func TestListenersCutSlowClients(t *testing.T) {
	db := filepath.Join(t.TempDir(), "slow.db")
	base, _, logs := startServeLog(t, noEnv, "--db", db, "--addr", ":0", "--image-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--read-header-timeout", "300ms", "--read-timeout", "600ms", "--idle-timeout", "600ms")
	main := strings.TrimPrefix(base, "http://")
	imgAddr, metricsAddr := logAddr(t, logs.String(), "images listening"), logAddr(t, logs.String(), "metrics listening")
	for name, addr := range map[string]string{"main": main, "image": imgAddr, "metrics": metricsAddr} {
		for _, body := range []bool{false, true} {
			if !slowClientCutOff(t, addr, body, 8*time.Second) {
				t.Errorf("%s listener: a slow client (body %v) was still connected after 8s", name, body)
			}
		}
	}
	for _, flag := range []string{"--read-timeout", "--read-header-timeout", "--write-timeout", "--idle-timeout"} {
		err, _, _ := runArgs("serve", "--db", db, "--addr", "127.0.0.1:0", flag, "0s")
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("serve %s 0s: %v", flag, err)
		}
	}
}

// TestPublicURLsAndMetricsPlace: --addr :PORT gives out localhost, not
// [::]; image URLs on their own listener follow the API's host; each public
// URL is logged once; /metrics is off the public listener and on
// --metrics-addr.
func TestPublicURLsAndMetricsPlace(t *testing.T) {
	db := newDB(t, "urls.db")
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "u@example.com"))
	base, _, logs := startServeLog(t, noEnv, "--db", db, "--addr", ":0", "--image-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	_, imgPort, _ := net.SplitHostPort(logAddr(t, logs.String(), "images listening"))
	want := map[string]string{
		"api":     "http://localhost:" + port + "/api",
		"images":  "http://localhost:" + imgPort,
		"website": "http://localhost:" + port + "/",
	}
	if got := publicURLLines(t, logs.String()); !equalMaps(got, want) {
		t.Errorf("public URL lines %v, want %v", got, want)
	}
	code, body := getJSON(t, base+"/api/perfumes/dior-sauvage", "X-API-Key", key)
	if img, _ := body["image"].(string); code != 200 || !strings.HasPrefix(img, "http://localhost:"+imgPort+"/perfume/31861.jpg") ||
		!strings.HasPrefix(body["buyUrl"].(string), "http://localhost:"+port+"/goto/") {
		t.Errorf("detail = %d image %v buyUrl %v", code, body["image"], body["buyUrl"])
	}
	if resp := get(t, base+"/metrics", ""); resp.StatusCode != 404 {
		t.Errorf("/metrics on the public listener without a token: %d, want 404", resp.StatusCode)
	}
	if resp := get(t, "http://"+logAddr(t, logs.String(), "metrics listening")+"/metrics", ""); resp.StatusCode != 200 {
		t.Errorf("/metrics on --metrics-addr: %d", resp.StatusCode)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// get fetches url with an optional Authorization header and closes the body.
func get(t *testing.T, url, auth string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestServeLogsKeepConventions runs serve with JSON logs and a key sent
// every way a client might, right and wrong, and reads the log: no secret,
// durations as strings, the public URLs derived from --base-url; /metrics
// behind its token; OPTIONS /healthz a 204.
func TestServeLogsKeepConventions(t *testing.T) {
	db := newDB(t, "logs.db")
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "l@example.com"))
	pk, _ := apikey.ParseKey(key)
	token := "metrics-token-0123456789"
	base, stop, logs := startServeLog(t, noEnv, "--db", db, "--log-format", "json", "--log-level", "debug",
		"--base-url", "https://api.example.com/", "--image-addr", "127.0.0.1:0", "--metrics-token", token)
	_, imgPort, _ := net.SplitHostPort(logAddr(t, logs.String(), "images listening"))
	want := map[string]string{"api": "https://api.example.com/api", "images": "https://api.example.com:" + imgPort, "website": "https://api.example.com/"}
	if got := publicURLLines(t, logs.String()); !equalMaps(got, want) {
		t.Errorf("public URL lines %v, want %v", got, want)
	}

	for _, path := range []string{
		"/api/perfumes?api_key=" + key, "/api/perfumes?q=" + key, "/api/perfumes/" + key, "/" + key,
		"/api/perfumes?api%5Fkey=" + key, "/api/perfumes?q=fds%5F" + key[4:], "/api/perfumes?api_key=" + key[:len(key)-1],
	} {
		get(t, base+path, "")
	}
	for _, h := range [][2]string{{"X-API-Key", key}, {"Authorization", "Bearer " + key}, {"X-API-Key", key + "x"}} {
		getJSON(t, base+"/api/brands", h[0], h[1])
	}
	if resp := get(t, base+"/metrics", ""); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("/metrics without the token: %d", resp.StatusCode)
	}
	if resp := get(t, base+"/metrics", "Bearer wrong-token-0123456789"); resp.StatusCode != 401 {
		t.Errorf("/metrics with a wrong token: %d", resp.StatusCode)
	}
	if resp := get(t, base+"/metrics", "Bearer "+token); resp.StatusCode != 200 {
		t.Errorf("/metrics with the token: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("OPTIONS", base+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("OPTIONS /healthz = %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	stop()

	out := logs.String()
	if strings.Contains(out, key[len(pk.Prefix):]) || strings.Contains(out, key[12:30]) {
		t.Errorf("a secret reached the log:\n%s", out)
	}
	if !strings.Contains(out, pk.Prefix) {
		t.Errorf("the key's prefix is not in the log at all (were the requests logged?)")
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	lines := 0
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("not a JSON line: %q", sc.Text())
			continue
		}
		lines++
		for _, k := range []string{"duration", "took", "timeout"} {
			if v, ok := rec[k]; ok {
				if s, isString := v.(string); !isString || !strings.HasSuffix(s, "s") {
					t.Errorf("%s = %v in %s: want a string such as 12.3ms", k, v, sc.Text())
				}
			}
		}
	}
	if lines < 10 {
		t.Errorf("only %d log lines", lines)
	}
}

// TestRedisLogIntoSlog: the Redis client's own lines reach the service's
// log at WARN, as one structured record.
func TestRedisLogIntoSlog(t *testing.T) {
	var buf bytes.Buffer
	redisLog{slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: replaceLogAttr}))}.
		Printf(context.Background(), "redis: %s:%d: connection pool: %s\n", "127.0.0.1", 6379, "dial tcp: refused")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["level"] != "WARN" || rec["detail"] != "redis: 127.0.0.1:6379: connection pool: dial tcp: refused" {
		t.Errorf("redis line = %s (%v)", buf.String(), err)
	}
}
