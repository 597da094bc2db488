package fault

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// tcpProxy forwards connections to a target and can cut them all: the
// shared PostgreSQL of the tests cannot be stopped, so the service talks
// to it through this, and the database goes away for it alone.
type tcpProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	cut     bool
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
	refused int // connections refused while cut
}

// startProxy listens on a loopback port and forwards to target until the
// test ends.
func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.setCut(true)
		p.wg.Wait()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *tcpProxy) Addr() string { return p.ln.Addr().String() }

// setCut cuts every connection open and refuses new ones (true), or
// forwards again (false).
func (p *tcpProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
	}
}

func (p *tcpProxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return // closed at the end of the test
		}
		p.mu.Lock()
		cut := p.cut
		if cut {
			p.refused++
		}
		p.mu.Unlock()
		if cut {
			in.Close()
			continue
		}
		out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			in.Close()
			out.Close()
			p.mu.Unlock()
			continue
		}
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.wg.Add(2)
		p.mu.Unlock()
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// pipe copies src to dst; when either ends, both end.
func (p *tcpProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	p.mu.Lock()
	delete(p.conns, src)
	delete(p.conns, dst)
	p.mu.Unlock()
}

// hostPort is the host:port of a postgres:// URL (5432 by default).
func hostPort(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() == "" {
		t.Fatalf("FRAGRANCE_TEST_POSTGRES: want postgres://user@host[:port]/db")
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "5432")
	}
	return u.Host
}

// viaProxy is dsn with its host replaced by addr.
func viaProxy(t *testing.T, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}
