package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/server"
)

// logBuffer batches serve's log lines: every answer writes an access-log
// line, and one write system call per line was a tenth of a small answer's
// cost under load. Lines wait at most flushEvery; warnings and errors are
// written at once (see flushingHandler), and Close writes the rest. A flush
// swaps buffers and writes outside the lock, so requests logging meanwhile
// never wait for the write.
type logBuffer struct {
	mu    sync.Mutex // guards buf
	buf   []byte
	size  int
	wmu   sync.Mutex // orders the writes to w
	w     io.Writer
	spare []byte // guarded by wmu
	stop  chan struct{}
	done  chan struct{}
}

// newLogBuffer buffers about size bytes for w and flushes every flushEvery.
func newLogBuffer(w io.Writer, size int, flushEvery time.Duration) *logBuffer {
	lb := &logBuffer{w: w, size: size, buf: make([]byte, 0, size), spare: make([]byte, 0, size),
		stop: make(chan struct{}), done: make(chan struct{})}
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

// Write buffers p (one log record: the handlers write whole lines), and
// flushes when the buffer is full.
func (lb *logBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	lb.buf = append(lb.buf, p...)
	full := len(lb.buf) >= lb.size
	lb.mu.Unlock()
	if full {
		if err := lb.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is buffered.
func (lb *logBuffer) Flush() error {
	lb.wmu.Lock()
	defer lb.wmu.Unlock()
	lb.mu.Lock()
	out := lb.buf
	lb.buf = lb.spare[:0]
	lb.mu.Unlock()
	var err error
	if len(out) > 0 {
		_, err = lb.w.Write(out)
	}
	if cap(out) <= 4*lb.size { // a burst's oversized buffer is dropped
		lb.spare = out[:0]
	} else {
		lb.spare = make([]byte, 0, lb.size)
	}
	return err
}

// wrote is told the level of each line written: a warning or an error is
// flushed at once, everything else waits for the periodic flush.
func (lb *logBuffer) wrote(level slog.Level) {
	if level >= slog.LevelWarn {
		lb.Flush()
	}
}

// Close stops the periodic flush and writes what is left.
func (lb *logBuffer) Close() error {
	close(lb.stop)
	<-lb.done
	return lb.Flush()
}

// accessLog writes access-log lines into the log buffer as the text or
// JSON handler would (server.AccessEntry.AppendText, AppendJSON), formatted
// outside any lock and copied in under one: a line per request is the
// log's whole volume, and slog's handlers cost twice as much and hold a
// second lock. Lines of level Warn or above are flushed at once.
type accessLog struct {
	lb    *logBuffer
	level slog.Level
	json  bool
}

func (a accessLog) Enabled(level slog.Level) bool { return level >= a.level }

func (a accessLog) Log(e *server.AccessEntry) {
	var buf [512]byte
	b := buf[:0]
	if a.json {
		b = e.AppendJSON(b)
	} else {
		b = e.AppendText(b)
	}
	a.lb.Write(b)
	a.lb.wrote(e.Level)
}

// flushingHandler flushes the log buffer after every record of level Warn
// or above, so problems reach the log at once while access lines batch.
type flushingHandler struct {
	slog.Handler
	lb *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	h.lb.wrote(r.Level)
	return err
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(as), h.lb}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.lb}
}
