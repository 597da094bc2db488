package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the flusher and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogBuffer: lines from many goroutines all arrive, whole and in each
// goroutine's order; warnings are written at once; Close writes the rest.
func TestLogBuffer(t *testing.T) {
	var out lockedBuffer
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
