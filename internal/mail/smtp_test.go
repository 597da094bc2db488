package mail

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

var signIn = Message{To: "dev@example.org", Subject: "Your sign-in link", Text: "https://fragrance.test/portal/signin?token=abc\n.\n..dots stay\n"}

// checkDelivered fails unless s delivered signIn whole.
func checkDelivered(t *testing.T, s session) {
	t.Helper()
	if !s.done || s.from != "FROM:<noreply@fragrance.test>" || s.to != "TO:<dev@example.org>" {
		t.Fatalf("session %v: from %q to %q done %v", s, s.from, s.to, s.done)
	}
	msg, body := parseLetter(t, []byte(s.data))
	if msg.Header.Get("To") != "<dev@example.org>" || body != strings.ReplaceAll(signIn.Text, "\n", "\r\n") {
		t.Errorf("received To %q body %q", msg.Header.Get("To"), body)
	}
}

func TestSMTPPlainOnLocalhost(t *testing.T) {
	srv := startFakeSMTP(t, func(f *fakeSMTP) { f.auth = true })
	log, logs := newTestLogger()
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://mailer:s3cret@localhost:2525", Logger: log})
	if err := s.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	got := srv.recorded()
	if len(got) != 1 {
		t.Fatalf("%d conversations", len(got))
	}
	checkDelivered(t, got[0])
	if !got[0].authed || got[0].user != "mailer" || got[0].pass != "s3cret" || got[0].tls {
		t.Errorf("session %v user %q pass %q", got[0], got[0].user, got[0].pass)
	}
	want := []string{"EHLO localhost", "AUTH PLAIN", "MAIL FROM:<noreply@fragrance.test>", "RCPT TO:<dev@example.org>", "DATA", "QUIT"}
	if strings.Join(got[0].commands, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q; want %q", got[0].commands, want)
	}
	if out := logs.String(); !strings.Contains(out, "mail sent") || !strings.Contains(out, "domain=example.org") || strings.Contains(out, "s3cret") || strings.Contains(out, "token") {
		t.Errorf("log:\n%s", out)
	}
}

func TestSMTPNoUserNoAuth(t *testing.T) {
	srv := startFakeSMTP(t)
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://relay.internal", Logger: slog.New(slog.DiscardHandler)})
	if err := s.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	if got := srv.recorded(); len(got) != 1 || got[0].authed {
		t.Fatalf("sessions %v", got)
	}
}

func TestSMTPUpgradesWithSTARTTLS(t *testing.T) {
	offerTLS, client := withTLS(t, "mail.example.com", false)
	srv := startFakeSMTP(t, offerTLS, func(f *fakeSMTP) { f.auth = true })
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://mailer:s3cret@mail.example.com:587", TLS: client, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	got := srv.recorded()
	if len(got) != 1 {
		t.Fatalf("%d conversations", len(got))
	}
	checkDelivered(t, got[0])
	if !got[0].tls || !got[0].authTLS || got[0].commands[1] != "STARTTLS" {
		t.Errorf("no upgrade before AUTH: %v", got[0])
	}
}

func TestSMTPRefusesAnUntrustedCertificate(t *testing.T) {
	offerTLS, _ := withTLS(t, "mail.example.com", false)
	srv := startFakeSMTP(t, offerTLS)
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://mail.example.com", Logger: slog.New(slog.DiscardHandler)}) // system roots
	err := s.Send(context.Background(), signIn)
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("err %v; want a STARTTLS failure", err)
	}
	if got := srv.delivered(); len(got) != 0 {
		t.Errorf("delivered over an unverified connection: %v", got)
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	offerTLS, client := withTLS(t, "mail.example.com", true)
	srv := startFakeSMTP(t, offerTLS, func(f *fakeSMTP) { f.auth = true })
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtps://mailer:s3cret@mail.example.com", TLS: client, Logger: slog.New(slog.DiscardHandler)})
	if s.addr != "mail.example.com:465" {
		t.Errorf("addr %q; want port 465", s.addr)
	}
	if err := s.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	got := srv.recorded()
	checkDelivered(t, got[0])
	if !got[0].authTLS || got[0].commands[1] != "AUTH PLAIN" {
		t.Errorf("session %v", got[0])
	}
}

func TestSMTPKeepsThePasswordOffPlainConnections(t *testing.T) {
	srv := startFakeSMTP(t, func(f *fakeSMTP) { f.auth = true })
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://mailer:s3cret@mail.example.com", Logger: slog.New(slog.DiscardHandler)})
	err := s.Send(context.Background(), signIn)
	if err == nil || !strings.Contains(err.Error(), "refusing to send the password unencrypted") {
		t.Fatalf("err %v", err)
	}
	for _, c := range srv.recorded()[0].commands {
		if strings.HasPrefix(c, "AUTH") || strings.HasPrefix(c, "MAIL") {
			t.Errorf("sent %q", c)
		}
	}
}

func TestSMTPReportsRefusals(t *testing.T) {
	srv := startFakeSMTP(t)
	srv.setRcptCode(550)
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://localhost", Logger: slog.New(slog.DiscardHandler)})
	err := s.Send(context.Background(), signIn)
	if err == nil || !strings.Contains(err.Error(), "RCPT TO") || !strings.Contains(err.Error(), "550") {
		t.Fatalf("err %v", err)
	}
	if err := s.Send(context.Background(), Message{To: "x@y.test\r\nBcc: z@y.test"}); err == nil {
		t.Error("header injection sent")
	}
}

func TestSMTPTimesOutOnASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and says nothing
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	s, err := NewSMTP(SMTPConfig{URL: "smtp://" + ln.Addr().String(), From: "a@b.test", Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), signIn); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err %v; want the timeout", err)
	}
}

func TestNewSMTPRefusesBadURLs(t *testing.T) {
	cases := []struct{ url, from, want string }{
		{"http://mail.example.com", "a@b.test", `scheme "http"`},
		{"mail.example.com:587", "a@b.test", "scheme"},
		{"smtp://", "a@b.test", "no host"},
		{"smtp://user:pa ss@:25", "a@b.test", "does not parse"},
		{"smtp://user:pw@mail.example.com:0", "a@b.test", "port"},
		{"smtp://user:pw@mail.example.com:99999", "a@b.test", "port"},
		{"smtp://user:pw@mail.example.com/inbox", "a@b.test", "no path"},
		{"smtp://mail.example.com", "not an address", "mail from"},
		{"smtp://mail.example.com", "", "From is empty"},
	}
	for _, c := range cases {
		_, err := NewSMTP(SMTPConfig{URL: c.url, From: c.from})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v; want %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "pa ss") {
			t.Errorf("%q: the error shows the password: %v", c.url, err)
		}
	}
	s, err := NewSMTP(SMTPConfig{URL: "smtp://mail.example.com", From: "a@b.test"})
	if err != nil || s.addr != "mail.example.com:587" || s.auth != nil {
		t.Errorf("defaults: %+v %v", s, err)
	}
}
