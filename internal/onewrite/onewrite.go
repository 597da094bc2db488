// Package onewrite sends an HTTP/1 answer whose body is in memory in one
// write system call instead of net/http's two (see Write).
package onewrite

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
)

// An answer of more than 4 KB leaves net/http in two write system calls:
// its connection buffers 4 KB, so the status line, the headers and the
// body's first bytes go out when that buffer is full, and the rest after.
// Each write costs the kernel's whole send path (on a loopback, the
// receiving side's too), a cost of the same order as the rest of a cached
// answer (bench/RESULTS.md).
// Listener and Write send an answer whose body is already in memory in
// one write: while the answer is written, its connection holds what
// net/http gives it, and writes it all at once when the answer is flushed.

// Listener wraps l so that Write can send an answer in one
// write; the server serving it must have ConnContext as its
// ConnContext. Connections behave as l's otherwise (deadlines, keep-alive,
// sendfile for files).
func Listener(l net.Listener) net.Listener { return oneWriteListener{l} }

type oneWriteListener struct{ net.Listener }

func (l oneWriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &holdConn{Conn: c}, nil
}

// ConnContext is the http.Server ConnContext that lets Write
// find its request's connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*holdConn); ok {
		return context.WithValue(ctx, holdConnKey{}, hc)
	}
	return ctx
}

type holdConnKey struct{}

// holdConn is a connection that can hold its writes: between hold and
// release, what is written is kept and then written in one call. Only the
// goroutine serving the connection's request writes to it (net/http
// writes an HTTP/1 answer from there), and only it holds and releases.
type holdConn struct {
	net.Conn
	held *[]byte // while holding: what was written since, from heldBufs
}

// heldBufs are the buffers of answers being held, shared by every
// connection (an idle connection keeps none).
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxHeld is the most a buffer kept in heldBufs may hold: a larger answer
// (a list page of 100 perfumes is some 90 KB) is held in a buffer of its
// own, left to the collector.
const maxHeld = 256 << 10

func (c *holdConn) hold() {
	c.held = heldBufs.Get().(*[]byte)
}

// release writes what was held, in one call, and stops holding.
func (c *holdConn) release() error {
	b := c.held
	c.held = nil
	var err error
	if len(*b) > 0 {
		_, err = c.Conn.Write(*b)
	}
	if cap(*b) <= maxHeld {
		*b = (*b)[:0]
		heldBufs.Put(b)
	}
	return err
}

func (c *holdConn) Write(p []byte) (int, error) {
	if c.held == nil {
		return c.Conn.Write(p)
	}
	*c.held = append(*c.held, p...)
	return len(p), nil
}

// ReadFrom keeps net/http's sendfile for files served (the image host's):
// the connection's own ReadFrom when it has one and holds nothing.
func (c *holdConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && c.held == nil {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c}, r)
}

// CloseWrite is the connection's own (net/http half-closes a TCP
// connection before it closes it after an error).
func (c *holdConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// writerOnly hides a writer's ReadFrom, so that io.Copy does not call it
// again.
type writerOnly struct{ io.Writer }

// Write writes body, the whole of an answer whose status and headers
// (Content-Length among them) are set, and flushes it: served through
// Listener, headers and body leave in one write. It returns the
// write's error (the client gone); without the listener it is w.Write.
func Write(w http.ResponseWriter, r *http.Request, body []byte) error {
	var hc *holdConn
	if r != nil {
		hc, _ = r.Context().Value(holdConnKey{}).(*holdConn)
	}
	if hc == nil || hc.held != nil {
		_, err := w.Write(body)
		return err
	}
	hc.hold()
	_, err := w.Write(body)
	if err == nil {
		// A writer between w and net/http's that cannot flush leaves
		// the rest to net/http's own flush, unheld: two writes, as
		// without the listener.
		if ferr := http.NewResponseController(w).Flush(); !errors.Is(ferr, http.ErrNotSupported) {
			err = ferr
		}
	}
	if rerr := hc.release(); err == nil {
		err = rerr
	}
	return err
}
