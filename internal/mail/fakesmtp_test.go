package mail

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSMTP is a mail server for tests on a loopback listener: it speaks
// enough SMTP for net/smtp, can offer STARTTLS or speak TLS from the
// start, and records every conversation.
type fakeSMTP struct {
	t        *testing.T
	ln       net.Listener
	tls      *tls.Config // offers STARTTLS when set (TLS from the start when implicit)
	implicit bool
	auth     bool // offers AUTH PLAIN

	mu       sync.Mutex
	rcptCode int // the answer to RCPT TO; 250 unless set
	sessions []*session
	wg       sync.WaitGroup
}

// session is one recorded conversation.
type session struct {
	commands []string // as received; AUTH's payload decoded
	tls      bool     // STARTTLS done (or TLS from the start)
	authed   bool     // AUTH came over TLS or not: see authTLS
	authTLS  bool
	user     string
	pass     string
	from, to string
	data     string // the message as received, dots unstuffed, CRLF line ends
	done     bool   // the message was accepted
}

// startFakeSMTP starts a server; its options are set on the returned
// value before the first connection (they are read per connection).
func startFakeSMTP(t *testing.T, opts ...func(*fakeSMTP)) *fakeSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSMTP{t: t, ln: ln, rcptCode: 250}
	for _, o := range opts {
		o(f)
	}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(func() {
		ln.Close()
		f.wg.Wait()
	})
	return f
}

// setRcptCode sets the answer to RCPT TO of the following conversations.
func (f *fakeSMTP) setRcptCode(code int) {
	f.mu.Lock()
	f.rcptCode = code
	f.mu.Unlock()
}

// recorded returns the conversations so far.
func (f *fakeSMTP) recorded() []session {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]session, len(f.sessions))
	for i, s := range f.sessions {
		out[i] = *s
	}
	return out
}

// delivered returns the messages accepted so far.
func (f *fakeSMTP) delivered() []session {
	var out []session
	for _, s := range f.recorded() {
		if s.done {
			out = append(out, s)
		}
	}
	return out
}

// dial connects to the server whatever address is asked for, so a test
// can name any host (and so the TLS certificate and the AUTH rules for it).
func (f *fakeSMTP) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", f.ln.Addr().String())
}

func (f *fakeSMTP) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second)) // a stuck test fails, it does not hang
			f.serve(c)
		}()
	}
}

// serve holds one conversation; each change to s happens under f.mu.
func (f *fakeSMTP) serve(c net.Conn) {
	s := &session{}
	f.mu.Lock()
	f.sessions = append(f.sessions, s)
	f.mu.Unlock()
	record := func(fn func()) { f.mu.Lock(); fn(); f.mu.Unlock() }
	if f.implicit {
		tc := tls.Server(c, f.tls)
		if tc.Handshake() != nil {
			return
		}
		c = tc
		record(func() { s.tls = true })
	}
	tp := textproto.NewConn(c)
	tp.PrintfLine("220 fake.test ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		record(func() {
			shown := line
			if verb == "AUTH" {
				shown = "AUTH " + strings.Fields(arg)[0]
			}
			s.commands = append(s.commands, shown)
		})
		switch verb {
		case "EHLO", "HELO":
			ext := []string{"fake.test"}
			f.mu.Lock()
			if f.tls != nil && !s.tls {
				ext = append(ext, "STARTTLS")
			}
			if f.auth {
				ext = append(ext, "AUTH PLAIN")
			}
			f.mu.Unlock()
			ext = append(ext, "SIZE 1000000")
			for i, e := range ext {
				sep := "-"
				if i == len(ext)-1 {
					sep = " "
				}
				tp.PrintfLine("250%s%s", sep, e)
			}
		case "STARTTLS":
			tp.PrintfLine("220 go ahead")
			tc := tls.Server(c, f.tls)
			if tc.Handshake() != nil {
				return
			}
			c = tc
			tp = textproto.NewConn(c)
			record(func() { s.tls = true })
		case "AUTH":
			fields := strings.Fields(arg)
			if len(fields) != 2 || fields[0] != "PLAIN" {
				tp.PrintfLine("504 PLAIN only, with its initial response")
				continue
			}
			b, _ := base64.StdEncoding.DecodeString(fields[1])
			parts := strings.Split(string(b), "\x00")
			if len(parts) != 3 {
				tp.PrintfLine("501 bad PLAIN")
				continue
			}
			record(func() { s.authed, s.authTLS, s.user, s.pass = true, s.tls, parts[1], parts[2] })
			tp.PrintfLine("235 ok")
		case "MAIL":
			record(func() { s.from = arg })
			tp.PrintfLine("250 ok")
		case "RCPT":
			f.mu.Lock()
			code := f.rcptCode
			s.to = arg
			f.mu.Unlock()
			tp.PrintfLine("%d %s", code, map[bool]string{true: "ok", false: "not now"}[code == 250])
		case "DATA":
			tp.PrintfLine("354 go ahead")
			b, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			// ReadDotBytes makes each CRLF an LF: put them back.
			record(func() { s.data, s.done = strings.ReplaceAll(string(b), "\n", "\r\n"), true })
			tp.PrintfLine("250 queued")
		case "QUIT":
			tp.PrintfLine("221 bye")
			return
		case "RSET", "NOOP":
			tp.PrintfLine("250 ok")
		default:
			tp.PrintfLine("502 not here")
		}
	}
}

// testCert is a self-signed certificate for host and the pool that
// trusts it.
func testCert(t *testing.T, host string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// withTLS is the option of startFakeSMTP that makes the server offer
// STARTTLS (or, implicit, speak TLS from the start) with a certificate for
// host, and the client's TLS configuration that trusts it.
func withTLS(t *testing.T, host string, implicit bool) (func(*fakeSMTP), *tls.Config) {
	cert, pool := testCert(t, host)
	return func(f *fakeSMTP) {
		f.tls = &tls.Config{Certificates: []tls.Certificate{cert}}
		f.implicit = implicit
	}, &tls.Config{RootCAs: pool}
}

// newTestSMTP is the sender of rawURL talking to f whatever host rawURL
// names.
func newTestSMTP(t *testing.T, f *fakeSMTP, c SMTPConfig) *SMTP {
	t.Helper()
	if c.From == "" {
		c.From = "Fragrance <noreply@fragrance.test>"
	}
	s, err := NewSMTP(c)
	if err != nil {
		t.Fatal(err)
	}
	s.dialer = f.dial
	return s
}

// String describes a session in failure messages.
func (s session) String() string {
	return fmt.Sprintf("tls=%v authed=%v commands=%q", s.tls, s.authed, s.commands)
}
