package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/server"
)

// TestLogBuffer: lines from many goroutines all arrive, whole and in each
// goroutine's order; warnings are written at once; Close writes the rest.
func TestLogBuffer(t *testing.T) {
	var out syncBuffer
	lb := newLogBuffer(&out, 256, time.Hour)
	log := slog.New(flushingHandler{slog.NewTextHandler(lb, nil), lb})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				log.Info("line", "g", g, "i", i)
			}
		})
	}
	wg.Wait()
	log.Warn("problem")
	if !strings.Contains(out.String(), "msg=problem") {
		t.Fatal("a warning waited in the buffer")
	}
	log.Info("last")
	if err := lb.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 802 || !strings.Contains(lines[801], "msg=last") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	next := map[string]int{}
	for _, l := range lines[:800] {
		f := strings.Fields(l)
		if len(f) != 5 || !strings.HasPrefix(f[3], "g=") || !strings.HasPrefix(f[4], "i=") {
			t.Fatalf("broken line %q", l)
		}
		g, i := f[3], f[4]
		if want := fmt.Sprintf("i=%d", next[g]); i != want {
			t.Fatalf("%s: %s, want %s", g, i, want)
		}
		next[g]++
	}
}

// TestAccessLog: serve's access log writes, in each format, the line its
// slog logger would write for the same entry, holds info lines for the
// periodic flush and writes warnings at once.
func TestAccessLog(t *testing.T) {
	e := server.AccessEntry{Time: time.Date(2026, 11, 22, 3, 4, 5, 6e6, time.UTC), Level: slog.LevelInfo, RequestID: "abc",
		Method: "GET", Path: "/api/perfumes", Route: "perfumes.list", Status: 200, Bytes: 10, Duration: time.Millisecond,
		Remote: "127.0.0.1:1", Query: "q=a b", KeyPrefix: "fds_abcdefgh", ClientIP: "127.0.0.1"}
	for _, format := range []string{"text", "json"} {
		var out syncBuffer
		lb := newLogBuffer(&out, 1<<20, time.Hour)
		_, al, err := newLogger(lb, format, "info")
		if err != nil {
			t.Fatal(err)
		}
		if al.Enabled(slog.LevelDebug) || !al.Enabled(slog.LevelInfo) {
			t.Errorf("%s: Enabled does not follow --log-level info", format)
		}
		al.Log(&e)
		if out.String() != "" {
			t.Errorf("%s: an info line was written before the flush", format)
		}
		w := e
		w.Level, w.Status = slog.LevelWarn, 503
		al.Log(&w)
		got := out.String()
		lb.Close()
		var want syncBuffer
		wlb := newLogBuffer(&want, 1<<20, time.Hour)
		wlogger, _, _ := newLogger(wlb, format, "info")
		wlogger.Handler().Handle(context.Background(), e.Record())
		wlogger.Handler().Handle(context.Background(), w.Record())
		wlb.Close()
		// No control characters in e: the JSON is byte for byte slog's too.
		if got != want.String() || strings.Count(got, "\n") != 2 {
			t.Errorf("%s:\n got %q\nwant %q", format, got, want.String())
		}
	}
}
