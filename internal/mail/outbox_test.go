package mail

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/testclock"
)

// logBuffer collects log lines; the queue's worker writes from its own
// goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newTestLogger() (*slog.Logger, *logBuffer) {
	var b logBuffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

// emlFiles lists the .eml files of dir, sorted, and fails on any other
// entry but the folders named in allowed.
func emlFiles(t *testing.T, dir string, allowed ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		switch {
		case e.IsDir() && slices.Contains(allowed, e.Name()):
		case !e.IsDir() && strings.HasSuffix(e.Name(), ".eml"):
			names = append(names, e.Name())
		default:
			t.Errorf("%s: unexpected %s", dir, e.Name())
		}
	}
	return names
}

func TestOutboxWritesOneFilePerMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	log, logs := newTestLogger()
	clock := testclock.New(testTime)
	o, err := NewOutbox(OutboxConfig{Dir: dir, Logger: log, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("folder made before the first message: %v", err)
	}
	secret := "https://fragrance.test/portal/signin?token=SECRET-TOKEN"
	ctx := context.Background()
	for i, to := range []string{"first@example.org", "second@example.net", "third@example.com"} {
		if err := o.Send(ctx, Message{To: to, Subject: "Sign in", Text: "Your link: " + secret}); err != nil {
			t.Fatal(err)
		}
		clock.Add(time.Duration(i+1) * time.Millisecond) // the names must sort by time, not by chance
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("folder %v, %v; want mode 0700", st.Mode(), err)
	}
	names := emlFiles(t, dir)
	if len(names) != 3 {
		t.Fatalf("files %q; want 3", names)
	}
	for i, want := range []string{"first@example.org", "second@example.net", "third@example.com"} {
		raw, err := os.ReadFile(filepath.Join(dir, names[i]))
		if err != nil {
			t.Fatal(err)
		}
		msg, body := parseLetter(t, raw)
		if got := msg.Header.Get("To"); got != "<"+want+">" {
			t.Errorf("file %d is to %q; want %s (names sort by time)", i, got, want)
		}
		if !strings.Contains(body, secret) {
			t.Errorf("file %d lost the link", i)
		}
		if msg.Header.Get("From") != "\"Fragrance\" <fragrance@localhost>" {
			t.Errorf("default From %q", msg.Header.Get("From"))
		}
		if info, _ := os.Stat(filepath.Join(dir, names[i])); info.Mode().Perm()&0o077 != 0 {
			t.Errorf("file mode %v: readable by others", info.Mode())
		}
	}
	out := logs.String()
	if strings.Count(out, "mail written to outbox") != 3 || !strings.Contains(out, "domain=example.net") ||
		!strings.Contains(out, filepath.Join(dir, names[0])) {
		t.Errorf("log:\n%s", out)
	}
	if strings.Contains(out, "SECRET") || strings.Contains(out, "first@") {
		t.Errorf("the log names the link or the address:\n%s", out)
	}
}

func TestOutboxRefuses(t *testing.T) {
	if _, err := NewOutbox(OutboxConfig{}); err == nil {
		t.Error("no folder accepted")
	}
	if _, err := NewOutbox(OutboxConfig{Dir: t.TempDir(), From: "x\r\nBcc: y@z"}); err == nil {
		t.Error("From with a line break accepted")
	}
	dir := t.TempDir()
	o, _ := NewOutbox(OutboxConfig{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err := o.Send(context.Background(), Message{To: "a@b.test\nBcc: c@d.test", Subject: "x"}); err == nil {
		t.Error("header injection written")
	}
	if names := emlFiles(t, dir); len(names) != 0 {
		t.Errorf("files %q after a refused message", names)
	}
	// A folder that cannot be made: the error reaches the caller, no file.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	o, _ = NewOutbox(OutboxConfig{Dir: filepath.Join(blocker, "outbox"), Logger: slog.New(slog.DiscardHandler)})
	if err := o.Send(context.Background(), Message{To: "a@b.test", Subject: "x"}); err == nil {
		t.Error("a message to an impossible folder reported written")
	}
}

func TestWriteEMLLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	name, err := emlName(testTime)
	if err != nil {
		t.Fatal(err)
	}
	if written, ok := emlWritten(name); !ok || !written.Equal(testTime) {
		t.Errorf("name %q gives %v %v; want %v", name, written, ok, testTime)
	}
	path, err := writeEML(dir, name, []byte("x"))
	if err != nil || path != filepath.Join(dir, name) {
		t.Fatal(path, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("entries %v; want only the message (no temporary file)", entries)
	}
	// The same name again (a clash): the file is replaced whole, never
	// half-written, and nothing is left beside it.
	if _, err := writeEML(dir, name, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "y" {
		t.Errorf("content %q", b)
	}
	if _, ok := emlWritten("notes.txt"); ok {
		t.Error("a foreign name parsed as a message time")
	}
}
