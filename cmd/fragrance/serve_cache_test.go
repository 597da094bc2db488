package main

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestAnswerCacheFlag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"auto", 0, true}, {"0", -1, true}, {"64", 64, true},
		{"-1", 0, false}, {"", 0, false}, {"32MB", 0, false}, {"Auto", 0, false},
	} {
		got, err := answerCacheSize(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("answerCacheSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if err := run(t.Context(), []string{"serve", "--answer-cache-mb", "lots"}, noEnv, strings.NewReader(""), io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--answer-cache-mb") {
		t.Errorf("serve --answer-cache-mb lots: %v", err)
	}
}

// TestAnswerCacheMetricsServed: serve sizes the answer cache from the
// memory limit by default (a tenth of 350 MiB for the bundled catalogue),
// --answer-cache-mb 0 turns it off, and /metrics shows its series.
func TestAnswerCacheMetricsServed(t *testing.T) {
	db := newDB(t, "cache.db")
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--email", "c@example.com"))
	for _, tt := range []struct {
		flag  string
		limit float64
	}{{"auto", 35 << 20}, {"0", 0}} {
		base, stop, logs := startServeLog(t, noEnv, "--db", db, "--metrics-addr", "127.0.0.1:0", "--answer-cache-mb", tt.flag)
		for range 2 {
			if code, _ := getJSON(t, base+"/api/perfumes/dior-sauvage/similar", "X-API-Key", key); code != 200 {
				t.Fatalf("similar = %d", code)
			}
		}
		m := answerCacheSeries(t, "http://"+logAddr(t, logs.String(), "metrics listening")+"/metrics")
		stop()
		hits, misses := m["fragrance_answer_cache_hits_total"], m["fragrance_answer_cache_misses_total"]
		if len(m) != 6 || m["fragrance_answer_cache_limit_bytes"] != tt.limit || (tt.limit > 0) != (hits+misses == 2 && misses >= 1) {
			t.Errorf("--answer-cache-mb %s: %v", tt.flag, m)
		}
	}
}

// answerCacheSeries reads the fragrance_answer_cache_ series of /metrics.
func answerCacheSeries(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "fragrance_answer_cache_") {
			continue
		}
		if m[name], err = strconv.ParseFloat(value, 64); err != nil {
			t.Fatalf("%s: %q", url, sc.Text())
		}
	}
	return m
}
