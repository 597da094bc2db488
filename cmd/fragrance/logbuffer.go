package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logBuffer batches serve's log lines: every answer writes an access-log
// line, and one write system call per line was a tenth of a small answer's
// cost under load. Lines wait at most flushEvery; warnings and errors are
// written at once (see flushingHandler), and Close writes the rest.
type logBuffer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// newLogBuffer buffers up to size bytes for w and flushes every flushEvery.
func newLogBuffer(w io.Writer, size int, flushEvery time.Duration) *logBuffer {
	lb := &logBuffer{w: bufio.NewWriterSize(w, size), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(lb.done)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-lb.stop:
				return
			case <-t.C:
				lb.Flush()
			}
		}
	}()
	return lb
}

// Write buffers p (one log record: the handler writes whole lines).
func (lb *logBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.w.Write(p)
}

// Flush writes what is buffered.
func (lb *logBuffer) Flush() error {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.w.Flush()
}

// Close stops the periodic flush and writes what is left.
func (lb *logBuffer) Close() error {
	close(lb.stop)
	<-lb.done
	return lb.Flush()
}

// flushingHandler flushes the log buffer after every record of level Warn
// or above, so problems reach the log at once while access lines batch.
type flushingHandler struct {
	slog.Handler
	lb *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.lb.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(as), h.lb}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.lb}
}
