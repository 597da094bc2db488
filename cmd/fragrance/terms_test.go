package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBundledDataTerms: serving bundled data with prices set warns
// once, naming the licence and how to load other data, and the pricing
// page credits the data; a catalogue of other data has neither, prices or
// not.
func TestBundledDataTerms(t *testing.T) {
	dir := t.TempDir()
	// The small test catalogue is 700 of the bundled perfumes.
	base, _, log := startServeLog(t, noEnv, "--db", filepath.Join(dir, "b.db"), "--tier-prices", "basic=19 EUR/month")
	warn := waitForLine(t, log, "level=WARN", "--tier-prices")
	for _, want := range []string{"CC BY-NC-SA 4.0", "fragrance import --replace", "bundled_perfumes_served=700"} {
		if !strings.Contains(warn, want) {
			t.Errorf("the WARN %q does not say %q", warn, want)
		}
	}
	if page := getPage(t, base+"/pricing"); !strings.Contains(page, "Fragrantica community") ||
		!strings.Contains(page, `rel="license">CC BY-NC-SA 4.0</a>`) {
		t.Errorf("/pricing does not credit the bundled data:\n%s", page)
	}

	gen := filepath.Join(dir, "gen.jsonl")
	generateFile(t, gen, 30, 5)
	base, stop, log := startServeLog(t, noEnv, "--db", filepath.Join(dir, "g.db"), "--seed-file", gen,
		"--tier-prices", "basic=19 EUR/month")
	waitForLine(t, log, "catalogue loaded")
	if page := getPage(t, base+"/pricing"); strings.Contains(page, `id="data-credit"`) {
		t.Errorf("/pricing credits data it does not serve")
	}
	stop()
	if strings.Contains(log.String(), "level=WARN msg=\"--tier-prices") {
		t.Errorf("a WARN about the bundled data while other data is served:\n%s", log)
	}
}

// waitForLine returns the first line of log holding every part, waiting
// up to 30 s for it.
func waitForLine(t *testing.T, log *syncBuffer, parts ...string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	lines:
		for _, l := range strings.Split(log.String(), "\n") {
			for _, p := range parts {
				if !strings.Contains(l, p) {
					continue lines
				}
			}
			return l
		}
	}
	t.Fatalf("no line with %q in\n%s", parts, log)
	return ""
}

func getPage(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
