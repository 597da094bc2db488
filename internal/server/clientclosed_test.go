package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/server"
)

// entries collects access-log lines and hands each to the test.
type entries struct {
	logs chan server.AccessEntry
}

func (e *entries) Enabled(slog.Level) bool   { return true }
func (e *entries) Log(x *server.AccessEntry) { e.logs <- *x }

// TestClientClosedIsNotAServerError: a client that went away mid-image is
// not a server error (not a 503 at ERROR level, not counted as 5xx). Such
// a request is logged as 499 at INFO and counted under 499, both
// when the client leaves while the answer is being made (the handler then
// answers its context's error) and while it is being written.
func TestClientClosedIsNotAServerError(t *testing.T) {
	started := make(chan struct{}, 1)
	img := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		switch r.URL.Path {
		case "/perfume/1.jpg": // mid-render: waits, then answers what a failed wait used to
			<-r.Context().Done()
			problem.Write(w, r, problem.Of(problem.Unavailable, "gone"))
		case "/perfume/2.jpg": // mid-response: writes until the client is gone
			w.Header().Set("Content-Type", "image/jpeg")
			chunk := make([]byte, 64<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default: // a real server error, for comparison
			problem.Write(w, r, problem.Of(problem.Unavailable, "store away"))
		}
	})
	reg := prometheus.NewRegistry()
	log := &entries{logs: make(chan server.AccessEntry, 4)}
	h := server.New(server.Config{Catalogue: index.NewHolder(nil), Images: img, ImagePath: "/img",
		AccessLog: log, Registry: reg})
	ts := httptest.NewServer(h)
	defer ts.Close()

	// Mid-render: the client cancels while the handler waits.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/img/perfume/1.jpg", nil)
	go func() { <-started; cancel() }()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the cancelled request got an answer")
	}
	wantEntry(t, <-log.logs, "/img/perfume/1.jpg", 499, slog.LevelInfo)

	// Mid-response: the client reads a little and hangs up.
	resp, err := http.Get(ts.URL + "/img/perfume/2.jpg")
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := io.ReadFull(resp.Body, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	resp.Body.Close() // closes the connection: the body was not read to the end
	wantEntry(t, <-log.logs, "/img/perfume/2.jpg", 499, slog.LevelInfo)

	// A server error with the client still there stays one.
	resp, err = http.Get(ts.URL + "/img/perfume/3.jpg")
	if err != nil {
		t.Fatal(err)
	}
	<-started
	resp.Body.Close()
	wantEntry(t, <-log.logs, "/img/perfume/3.jpg", 503, slog.LevelWarn)

	// Metrics: two under 499, the one real 503 under 503.
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, mf := range mfs {
		if mf.GetName() != "fragrance_http_request_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "code" {
					counts[l.GetValue()] += m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	if counts["499"] != 2 || counts["503"] != 1 {
		t.Errorf("latency histogram by code = %v, want 499: 2, 503: 1", counts)
	}
}

func wantEntry(t *testing.T, e server.AccessEntry, path string, status int, level slog.Level) {
	t.Helper()
	if e.Path != path || e.Status != status || e.Level != level {
		t.Errorf("access log: %s %d %v; want %s %d %v", e.Path, e.Status, e.Level, path, status, level)
	}
}
