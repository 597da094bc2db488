package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers (a server, a log
// flusher) and the test reading it.
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

// smallCatalogue is a real subset of the bundled catalogue (the most rated
// perfumes and some cheaper houses) that fills the databases of end-to-end
// tests quickly, also under -race; one test uses the whole bundled one.
const smallCatalogue = "testdata/catalogue-small.jsonl.gz"

// listenRE finds the main listener's address in serve's log, text or JSON.
var listenRE = regexp.MustCompile(`msg=listening addr=(\S+)|"msg":"listening","addr":"([^"]+)"`)

// startServe runs `fragrance serve` in-process on port 0 and returns its
// base URL once /healthz answers 200, and a stop function that cancels it
// and waits for a clean exit.
func startServe(t *testing.T, getenv func(string) string, args ...string) (string, func()) {
	t.Helper()
	base, stop, _ := startServeLog(t, getenv, args...)
	return base, stop
}

// startServeLog is startServe that also returns serve's log (its standard
// error).
func startServeLog(t *testing.T, getenv func(string) string, args ...string) (string, func(), *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--image-workers", "0", "--image-queue-all=false",
			"--seed-file", smallCatalogue}, args...), getenv, strings.NewReader(""), io.Discard, stderr)
	}()
	var base string
	deadline := time.Now().Add(180 * time.Second) // a fresh database loads the catalogue first; CI machines are shared
	for base == "" {
		if m := listenRE.FindStringSubmatch(stderr.String()); m != nil {
			base = "http://" + m[1] + m[2]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen\n%s", stderr)
		}
	}
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz never 200\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v\n%s", err, stderr)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("serve did not stop\n%s", stderr)
		}
	}
	t.Cleanup(stop)
	return base, stop, stderr
}

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// runCmd runs a subcommand and returns its stdout.
func runCmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, noEnv, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("fragrance %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// newDB makes a new, migrated SQLite database in a temporary folder, as
// an operator would with migrate (or serve) before the keys commands.
func newDB(t *testing.T, name string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), name)
	runCmd(t, "migrate", "--db", db)
	return db
}

// generateSample is the bundled catalogue as generate reads it, read once
// for the package's tests: each read costs seconds under the race detector.
var generateSample = sync.OnceValues(func() ([]catalog.Perfume, error) {
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, err
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return nil, err
	}
	return res.Perfumes, nil
})

// generateFile writes to path what `fragrance generate --count count --seed
// seed --out path` writes, from the sample read once (TestImportGenerated
// runs the command itself).
func generateFile(t *testing.T, path string, count, seed int) {
	t.Helper()
	sample, err := generateSample()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, func(w io.Writer) error {
		return importer.Generate(w, count, int64(seed), sample)
	}); err != nil {
		t.Fatal(err)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	var last string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	return last
}

func getJSON(t *testing.T, url string, header ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// freshBundled is a database serve filled with the bundled catalogue on
// its first start, and the number of perfumes /healthz answered then. It
// is made once for the package's tests (filling it costs most of a minute
// under -race), which only read it afterwards, in the folder TestMain
// removes at the end.
var freshBundled struct {
	once     sync.Once
	db       string
	perfumes float64
}

// testDir is a folder for what the package's tests share; TestMain makes it
// and removes it.
var testDir string

// freshBundledDB returns freshBundled, making it on the first call.
func freshBundledDB(t *testing.T) (db string, perfumes float64) {
	t.Helper()
	freshBundled.once.Do(func() {
		db := filepath.Join(testDir, "fresh-bundled.db")
		base, stop := startServe(t, noEnv, "--db", db, "--seed-file", "")
		code, h := getJSON(t, base+"/healthz")
		stop()
		if n, ok := h["perfumes"].(float64); code == 200 && ok {
			freshBundled.db, freshBundled.perfumes = db, n
		}
	})
	if freshBundled.db == "" {
		t.Fatal("serve did not fill a fresh database with the bundled catalogue (see the first test that asked)")
	}
	return freshBundled.db, freshBundled.perfumes
}

// TestServeFreshDatabase is the README's first command on a new database:
// it fills itself with the bundled catalogue and answers. Under -race the
// import is single-threaded work of half a minute, and every other serve
// test fills its database the same way from the small test catalogue.
func TestServeFreshDatabase(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("the bundled catalogue's import is slow under the race detector; CI's plain pass (.ci/run, without -race) runs it")
	}
	if _, n := freshBundledDB(t); n < 37000 {
		t.Fatalf("healthz counted %v perfumes in a fresh database, want the bundled catalogue's (37,000 or more)", n)
	}
}

func TestVersionAndHelp(t *testing.T) {
	if out := runCmd(t, "version"); !strings.HasPrefix(out, "fragrance "+version) {
		t.Errorf("version = %q", out)
	}
	for _, c := range commands() {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{c.name, "--help"}, noEnv, strings.NewReader(""), &out, &errb); err != nil {
			t.Errorf("%s --help: %v", c.name, err)
		}
		if !strings.Contains(errb.String()+out.String(), "Usage: fragrance "+c.name) {
			t.Errorf("%s --help printed no usage: %q", c.name, errb.String())
		}
	}
	if err := run(context.Background(), []string{"nope"}, noEnv, strings.NewReader(""), io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestEnvFallback(t *testing.T) {
	env := func(k string) string {
		if k == "FRAGRANCE_LOG_LEVEL" {
			return "loud"
		}
		return ""
	}
	err := run(context.Background(), []string{"serve", "--db", filepath.Join(t.TempDir(), "x.db")}, env, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loud") {
		t.Errorf("FRAGRANCE_LOG_LEVEL=loud: err = %v", err)
	}
}

// TestServeImages: the image host answers on the main listener under /img
// and on its own listener with --image-addr, and API answers point at it.
func TestServeImages(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fragrance.db")
	base, _ := startServe(t, noEnv, "--db", db)
	resp, err := http.Get(base + "/img/perfume/31861.jpg")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || resp.Header.Get("ETag") == "" {
		t.Errorf("image = %d %q etag %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("ETag"))
	}
	resp, err = http.Get(base + "/img/perfume-nobg/31861.webp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("X-Service-Nobg-Status") != "not-processed" {
		t.Errorf("nobg = %d %q", resp.StatusCode, resp.Header.Get("X-Service-Nobg-Status"))
	}
}
