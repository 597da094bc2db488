package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"net/url"
	"os"
	"strconv"
	"time"
)

// DefaultTimeout bounds one SMTP conversation, from dialling to QUIT.
const DefaultTimeout = 20 * time.Second

// SMTP is the Sender through a mail server: one conversation a message,
// STARTTLS whenever the server offers it, AUTH PLAIN when the URL names a
// user. It does not retry; Queue does.
type SMTP struct {
	host, addr  string // host name (for TLS and AUTH), host:port to dial
	implicitTLS bool   // smtps://: TLS from the first byte
	auth        smtp.Auth
	from        string
	timeout     time.Duration
	tls         *tls.Config
	dialer      func(ctx context.Context, network, addr string) (net.Conn, error) // tests replace it
	log         *slog.Logger
	now         func() time.Time
}

// SMTPConfig is what an SMTP sender needs.
type SMTPConfig struct {
	// URL names the server: smtp://user:pass@host:port (port 587 when
	// left out; STARTTLS when offered) or smtps://user:pass@host:port (TLS
	// from the start; port 465 when left out). The user is optional.
	URL string
	// From is the From address, "noreply@example.com" or with a name,
	// "Fragrance <noreply@example.com>".
	From string
	// Timeout bounds each conversation; DefaultTimeout when zero.
	Timeout time.Duration
	// TLS is the base TLS configuration (tests give their own RootCAs);
	// ServerName is always the URL's host. The system's defaults when nil.
	TLS *tls.Config
	// Logger receives a line for each message sent; slog.Default when nil.
	Logger *slog.Logger
	// Now is the clock of the Date header; time.Now when nil.
	Now func() time.Time
}

// NewSMTP checks c and returns its sender. It does not contact the server.
func NewSMTP(c SMTPConfig) (*SMTP, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, errors.New("smtp url: does not parse; want smtp://user:pass@host:port") // err would repeat the password
	}
	s := &SMTP{from: c.From, timeout: c.Timeout, log: loggerOr(c.Logger), now: clockOr(c.Now)}
	port := "587"
	switch u.Scheme {
	case "smtp":
	case "smtps":
		s.implicitTLS, port = true, "465"
	default:
		return nil, fmt.Errorf("smtp url: scheme %q; want smtp:// (STARTTLS when offered) or smtps:// (TLS)", u.Scheme)
	}
	s.host = u.Hostname()
	if s.host == "" {
		return nil, errors.New("smtp url: no host; want smtp://user:pass@host:port")
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, errors.New("smtp url: want only smtp://user:pass@host:port, no path or query")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("smtp url: port %q; want 1 to 65535", p)
		}
		port = p
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		s.auth = smtp.PlainAuth("", u.User.Username(), pass, s.host)
	}
	if _, err := parseAddress("From", c.From); err != nil {
		return nil, fmt.Errorf("mail from: %w", err)
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	if c.TLS != nil {
		s.tls = c.TLS.Clone()
	}
	s.tls.ServerName = s.host
	return s, nil
}

// Send composes m and hands it to the server. An error means the server
// did not take it.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	l, err := compose(s.from, m, s.now())
	if err != nil {
		return err
	}
	return s.deliver(ctx, l)
}

// deliver holds one conversation with the server for l, within the
// timeout and ctx: cancelling either closes the connection.
func (s *SMTP) deliver(ctx context.Context, l letter) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	conn, err := s.dial(ctx)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", s.addr, s.cause(ctx, err))
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp %s: greeting: %w", s.addr, s.cause(ctx, err))
	}
	defer c.Close()
	if err := s.converse(c, l); err != nil {
		return fmt.Errorf("smtp %s: %w", s.addr, s.cause(ctx, err))
	}
	s.log.Info("mail sent", "server", s.host, "domain", l.domain())
	return nil
}

// dial opens the connection: plain for smtp://, TLS for smtps://.
func (s *SMTP) dial(ctx context.Context) (net.Conn, error) {
	dial := s.dialer
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	conn, err := dial(ctx, "tcp", s.addr)
	if err != nil || !s.implicitTLS {
		return conn, err
	}
	tc := tls.Client(conn, s.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS: %w", err)
	}
	return tc, nil
}

// converse is the conversation after the greeting: EHLO, STARTTLS when
// offered, AUTH when configured, MAIL, RCPT, DATA, QUIT.
func (s *SMTP) converse(c *smtp.Client, l letter) error {
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("EHLO: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !s.implicitTLS {
		if err := c.StartTLS(s.tls); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if s.auth != nil {
		if _, encrypted := c.TLSConnectionState(); !encrypted && !isLocalhost(s.host) {
			return errors.New("AUTH: the server offers no STARTTLS; refusing to send the password unencrypted (use smtps:// or a server with STARTTLS)")
		}
		if ok, _ := c.Extension("AUTH"); !ok {
			return errors.New("AUTH: the URL names a user but the server offers no AUTH")
		}
		if err := c.Auth(s.auth); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	if err := c.Mail(l.from); err != nil {
		return fmt.Errorf("MAIL FROM: %w", err)
	}
	if err := c.Rcpt(l.to); err != nil {
		return fmt.Errorf("RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := w.Write(l.raw); err != nil {
		w.Close()
		return fmt.Errorf("DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	c.Quit() // the server has the message: a failed goodbye loses nothing
	return nil
}

// cause is err said plainly: a timeout as one (the connection's deadline
// and the context's end at the same moment; either may be seen first), and
// the context's error kept when the context ended the conversation.
func (s *SMTP) cause(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out (limit %s): %w", s.timeout, err)
	case ctx.Err() != nil:
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// isLocalhost reports a host that is this machine, where AUTH may go
// without TLS (net/smtp's PlainAuth allows the same).
func isLocalhost(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}
