package api_test

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// TestAnswerCacheMetrics: /metrics counts the answer cache's hits, misses,
// rejections and evictions as requests for the same and for different
// answers arrive, and the bytes it holds.
func TestAnswerCacheMetrics(t *testing.T) {
	type want struct{ hits, misses, rejected, evictions float64 }
	for _, tt := range []struct {
		name    string
		mod     func(*newConfig)
		targets []string
		want    want
		bytes   bool // some answers kept
	}{
		{"every answer kept", func(c *newConfig) { c.AnswerCacheMinCost = -1 }, []string{
			"/api/perfumes/dior-sauvage", "/api/perfumes/dior-sauvage", "/api/perfumes/dior-sauvage",
			"/api/perfumes/creed-aventus/similar", "/api/brands", "/api/brands",
			"/api/perfumes/no-such", "/api/perfumes/no-such", // not found: made each time, not rejected
		}, want{hits: 3, misses: 5}, true},
		{"every answer too cheap", func(c *newConfig) { c.AnswerCacheMinCost = time.Hour }, []string{
			"/api/perfumes/dior-sauvage", "/api/perfumes/dior-sauvage", "/api/brands",
		}, want{misses: 3, rejected: 3}, false},
		{"off", func(c *newConfig) { c.AnswerCacheMB = -1 }, []string{
			"/api/perfumes/dior-sauvage", "/api/perfumes/dior-sauvage",
		}, want{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, scrape := metricsServer(t, tt.mod)
			for _, target := range tt.targets {
				do(t, h, "GET", target)
			}
			m := scrape()
			got := want{m["fragrance_answer_cache_hits_total"], m["fragrance_answer_cache_misses_total"],
				m["fragrance_answer_cache_rejected_total"], m["fragrance_answer_cache_evictions_total"]}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if kept := m["fragrance_answer_cache_bytes"] > 0; kept != tt.bytes {
				t.Errorf("fragrance_answer_cache_bytes %v", m["fragrance_answer_cache_bytes"])
			}
		})
	}
}

// TestAnswerCacheMetricsEvictions: a cache too small for the answers asked
// for evicts, and the newest answer is kept.
func TestAnswerCacheMetricsEvictions(t *testing.T) {
	h, scrape := metricsServer(t, func(c *newConfig) { c.AnswerCacheMB, c.AnswerCacheMinCost = 1, -1 })
	// 600 pages of 91 to 100 perfumes, within the first 6,000 (which the
	// item memo keeps): kept, each is 2 to 3 KB, its items spliced in;
	// together they do not fit in 16 shards of 64 KiB.
	var pages []string
	for p := 1; p <= 60; p++ {
		for limit := 91; limit <= 100; limit++ {
			pages = append(pages, "/api/perfumes?limit="+strconv.Itoa(limit)+"&page="+strconv.Itoa(p))
		}
	}
	for _, page := range pages {
		if rec := do(t, h, "GET", page); rec.Code != http.StatusOK || rec.Body.Len() < 64<<10 {
			t.Fatalf("GET %s = %d, %d bytes", page, rec.Code, rec.Body.Len())
		}
	}
	do(t, h, "GET", pages[len(pages)-1])
	m := scrape()
	if m["fragrance_answer_cache_misses_total"] != float64(len(pages)) || m["fragrance_answer_cache_hits_total"] != 1 ||
		m["fragrance_answer_cache_evictions_total"] < 16 || m["fragrance_answer_cache_rejected_total"] != 0 {
		t.Errorf("metrics %v", m)
	}
	if b := m["fragrance_answer_cache_bytes"]; b > 1<<20 || b < 16<<10 || m["fragrance_answer_cache_limit_bytes"] != 1<<20 {
		t.Errorf("bytes %v of %v", b, m["fragrance_answer_cache_limit_bytes"])
	}
}

// metricsServer is the server with mod applied and its /metrics, and a
// function that reads the answer cache's series from it.
func metricsServer(t *testing.T, mod func(*newConfig)) (http.Handler, func() map[string]float64) {
	reg := prometheus.NewRegistry()
	h := newServer(t, func(c *newConfig) {
		c.Registry, c.Metrics = reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		mod(c)
	})
	return h, func() map[string]float64 {
		rec := do(t, h, "GET", "/metrics")
		m := map[string]float64{}
		sc := bufio.NewScanner(rec.Body)
		for sc.Scan() {
			name, value, ok := strings.Cut(sc.Text(), " ")
			if !ok || !strings.HasPrefix(name, "fragrance_answer_cache_") {
				continue
			}
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("/metrics: %q", sc.Text())
			}
			m[name] = v
		}
		if len(m) != 6 {
			t.Fatalf("/metrics has %d answer cache series: %v", len(m), m)
		}
		return m
	}
}
