package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeNeighbourLists: serve ranks the neighbour lists after loading
// the catalogue and keeps them in the store; a restart on the same
// catalogue loads them and ranks nothing; --neighbour-workers 0 ranks
// nothing at all. Answers are the same either way (the index's tests
// check that item for item).
func TestServeNeighbourLists(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "n.db")
	waitLog := func(log *syncBuffer, want string) string {
		t.Helper()
		deadline := time.Now().Add(120 * time.Second)
		for time.Now().Before(deadline) {
			for _, line := range strings.Split(log.String(), "\n") {
				if strings.Contains(line, "neighbour lists ready") {
					if !strings.Contains(line, want) {
						t.Fatalf("log line %q, want %q in it", line, want)
					}
					return line
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("no \"neighbour lists ready\" in the log:\n%s", log)
		return ""
	}
	_, stop, log := startServeLog(t, noEnv, "--db", db)
	waitLog(log, "loaded=0 ranked=1")
	stop()

	base, stop, log := startServeLog(t, noEnv, "--db", db, "--metrics-token", "neighbour-test-token-0123")
	waitLog(log, "loaded=1 ranked=0")
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer neighbour-test-token-0123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	metrics := string(body)
	for _, want := range []string{"fragrance_neighbour_chunks 1", "fragrance_neighbour_chunks_ready 1"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	stop()

	_, stop, log = startServeLog(t, noEnv, "--db", db, "--neighbour-workers", "0")
	time.Sleep(200 * time.Millisecond)
	stop()
	if strings.Contains(log.String(), "neighbour lists") {
		t.Fatalf("--neighbour-workers 0 filled lists:\n%s", log)
	}
}

func TestServeNeighbourFlagsChecked(t *testing.T) {
	for _, args := range [][]string{{"--neighbour-workers", "-1"}, {"--neighbour-cpu-budget", "-5"}} {
		err := run(t.Context(), append([]string{"serve", "--db", filepath.Join(t.TempDir(), "x.db")}, args...), noEnv, strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("serve %v: err = %v", args, err)
		}
	}
}
