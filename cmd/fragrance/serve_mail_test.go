package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/mail"
)

// mailConfig is serve's configuration from args (no environment).
func mailConfig(t *testing.T, args ...string) *serveConfig {
	t.Helper()
	f, c := serveFlags(cmdIO{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard})
	if err := f.parse(args); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMailOutboxDefault(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--db", "/srv/fragrance/fragrance.db"}, "/srv/fragrance/outbox"},
		{[]string{"--db", "fragrance.db"}, "outbox"},
		{[]string{"--db", "postgres://fragrance:pw@db:5432/fragrance"}, "outbox"},
		{[]string{"--db", "/srv/fragrance/fragrance.db", "--mail-outbox", "/var/mail/fragrance"}, "/var/mail/fragrance"},
	}
	for _, c := range cases {
		if got := mailOutbox(mailConfig(t, c.args...)); got != c.want {
			t.Errorf("%q: outbox %q; want %q", c.args, got, c.want)
		}
	}
}

func TestNewMailerRefusesHalfAnSMTPSetup(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--smtp-url", "smtp://mailer:s3cret@mail.example.com"}, "--mail-from is not"},
		{[]string{"--mail-from", "noreply@example.com"}, "--smtp-url is not"},
		{[]string{"--smtp-url", "http://mailer:s3cret@mail.example.com", "--mail-from", "noreply@example.com"}, `scheme "http"`},
		{[]string{"--smtp-url", "smtp://mailer:s3cret@", "--mail-from", "noreply@example.com"}, "no host"},
		{[]string{"--smtp-url", "smtp://mailer:s3cret@mail.example.com", "--mail-from", "no reply"}, "From"},
	}
	for _, c := range cases {
		_, _, err := newMailer(mailConfig(t, c.args...), slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v; want %q", c.args, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error shows the password: %v", c.args, err)
		}
	}
}

func TestNewMailerWritesToTheOutboxWithoutSMTP(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	sender, stop, err := newMailer(mailConfig(t, "--db", filepath.Join(dir, "fragrance.db")), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sender.(*mail.Outbox); !ok {
		t.Fatalf("sender %T; want the outbox", sender)
	}
	if _, err := os.Stat(filepath.Join(dir, "outbox")); !os.IsNotExist(err) {
		t.Errorf("outbox folder made at start: %v", err)
	}
	if err := sender.Send(context.Background(), mail.Message{To: "dev@example.org", Subject: "Sign in", Text: "link"}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if len(files) != 1 {
		t.Errorf("outbox files %q", files)
	}
	if err := stop(context.Background()); err != nil {
		t.Error(err)
	}
	if !strings.Contains(logs.String(), "outbox="+filepath.Join(dir, "outbox")) {
		t.Errorf("log:\n%s", logs.String())
	}
}

func TestNewMailerSendsThroughSMTP(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	sender, stop, err := newMailer(mailConfig(t, "--db", filepath.Join(dir, "fragrance.db"),
		"--smtp-url", "smtp://mailer:s3cret@mail.example.com:2525", "--mail-from", "Fragrance <noreply@example.com>"),
		slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sender.(*mail.Queue); !ok {
		t.Fatalf("sender %T; want the SMTP queue", sender)
	}
	if err := stop(context.Background()); err != nil {
		t.Error(err)
	}
	out := logs.String()
	if !strings.Contains(out, "mail is sent through SMTP") || !strings.Contains(out, "mailer:xxxxx@mail.example.com:2525") ||
		strings.Contains(out, "s3cret") || !strings.Contains(out, filepath.Join(dir, "outbox", "spool")) {
		t.Errorf("log:\n%s", out)
	}
}
