package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/testclock"
)

// testQueue is a queue over a fake server with a settable clock.
type testQueue struct {
	*Queue
	srv   *fakeSMTP
	clock *testclock.Clock
	dir   string
	logs  *logBuffer
}

func newTestQueue(t *testing.T, srv *fakeSMTP, dir string) testQueue {
	t.Helper()
	log, logs := newTestLogger()
	clock := testclock.New(testTime)
	s := newTestSMTP(t, srv, SMTPConfig{URL: "smtp://localhost", Logger: log, Now: clock.Now})
	q, err := NewQueue(s, QueueConfig{Dir: dir, Logger: log, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	return testQueue{Queue: q, srv: srv, clock: clock, dir: dir, logs: logs}
}

func (q testQueue) spooled(t *testing.T) []string {
	return emlFiles(t, filepath.Join(q.dir, SpoolDir))
}

func TestQueueSendsAtOnceWhenTheServerTakesIt(t *testing.T) {
	q := newTestQueue(t, startFakeSMTP(t), t.TempDir())
	if err := q.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	if got := q.srv.delivered(); len(got) != 1 {
		t.Fatalf("delivered %d", len(got))
	}
	if names := emlFiles(t, q.dir); len(names) != 0 || len(q.spooled(t)) != 0 {
		t.Errorf("files left: %q", names)
	}
}

func TestQueueSpoolsAndRetries(t *testing.T) {
	srv := startFakeSMTP(t)
	srv.setRcptCode(451)
	q := newTestQueue(t, srv, t.TempDir())
	ctx := context.Background()
	if err := q.Send(ctx, signIn); err != nil {
		t.Fatalf("Send %v; want nil (queued)", err)
	}
	spooled := q.spooled(t)
	if len(spooled) != 1 {
		t.Fatalf("spool %q; want the message", spooled)
	}
	raw, err := os.ReadFile(filepath.Join(q.dir, SpoolDir, spooled[0]))
	if err != nil {
		t.Fatal(err)
	}
	if out := q.logs.String(); !strings.Contains(out, "spooled for another try") || !strings.Contains(out, "451") || strings.Contains(out, "token") {
		t.Errorf("log:\n%s", out)
	}

	// Not due yet: no conversation.
	q.clock.Add(29 * time.Second)
	q.RetryNow(ctx)
	if n := len(srv.recorded()); n != 1 {
		t.Fatalf("%d conversations before the first wait ended; want 1", n)
	}
	// Due, and the server still says later: the wait grows to 2 minutes.
	q.clock.Add(time.Second)
	q.RetryNow(ctx)
	if n := len(srv.recorded()); n != 2 {
		t.Fatalf("%d conversations; want 2", n)
	}
	q.clock.Add(time.Minute)
	q.RetryNow(ctx)
	if n := len(srv.recorded()); n != 2 {
		t.Fatalf("retried before the second wait ended")
	}
	srv.setRcptCode(250)
	q.clock.Add(time.Minute)
	q.RetryNow(ctx)
	got := srv.delivered()
	if len(got) != 1 || got[0].data != string(raw) {
		t.Fatalf("delivered %v; want the spooled file as it was", got)
	}
	checkDelivered(t, got[0])
	if left := q.spooled(t); len(left) != 0 {
		t.Errorf("spool %q after delivery", left)
	}
	if out := q.logs.String(); !strings.Contains(out, "spooled mail sent") || !strings.Contains(out, "tries=2") {
		t.Errorf("log:\n%s", out)
	}
	q.clock.Add(time.Hour)
	q.RetryNow(ctx)
	if len(srv.delivered()) != 1 {
		t.Error("sent twice")
	}
}

func TestQueueGivesUpAfterTheBound(t *testing.T) {
	srv := startFakeSMTP(t)
	srv.setRcptCode(451)
	q := newTestQueue(t, srv, t.TempDir())
	ctx := context.Background()
	if err := q.Send(ctx, signIn); err != nil {
		t.Fatal(err)
	}
	name := q.spooled(t)[0]
	for range 30 { // an hour at a time (the longest wait) through a day
		q.clock.Add(time.Hour)
		q.RetryNow(ctx)
		if len(q.spooled(t)) == 0 {
			break
		}
	}
	if left := q.spooled(t); len(left) != 0 {
		t.Fatalf("still spooled after a day: %q", left)
	}
	failed := emlFiles(t, filepath.Join(q.dir, FailedDir))
	if len(failed) != 1 || failed[0] != name {
		t.Fatalf("failed %q; want %s", failed, name)
	}
	if elapsed := q.clock.Now().Sub(testTime); elapsed < DefaultGiveUpAfter || elapsed > DefaultGiveUpAfter+time.Hour {
		t.Errorf("given up after %v", elapsed)
	}
	if out := q.logs.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "given up") || !strings.Contains(out, filepath.Join(FailedDir, name)) {
		t.Errorf("log:\n%s", out)
	}
	tries := len(srv.recorded())
	q.clock.Add(time.Hour)
	q.RetryNow(ctx)
	if len(srv.recorded()) != tries {
		t.Error("a failed message was tried again")
	}
}

func TestQueuePicksUpTheSpoolAtStart(t *testing.T) {
	dir := t.TempDir()
	refusing := startFakeSMTP(t)
	refusing.setRcptCode(421)
	before := newTestQueue(t, refusing, dir)
	if err := before.Send(context.Background(), signIn); err != nil {
		t.Fatal(err)
	}
	before.Stop(context.Background())

	srv := startFakeSMTP(t)
	after := newTestQueue(t, srv, dir)
	after.Start()
	if err := after.Stop(context.Background()); err != nil { // the worker's first pass completes before it stops
		t.Fatal(err)
	}
	if got := srv.delivered(); len(got) != 1 {
		t.Fatalf("delivered %d; want the message the previous process spooled", len(got))
	}
	checkDelivered(t, srv.delivered()[0])
	if left := after.spooled(t); len(left) != 0 {
		t.Errorf("spool %q", left)
	}
}

func TestQueueMovesUnreadableFilesToFailed(t *testing.T) {
	srv := startFakeSMTP(t)
	q := newTestQueue(t, srv, t.TempDir())
	spool := filepath.Join(q.dir, SpoolDir)
	os.MkdirAll(spool, 0o700)
	os.WriteFile(filepath.Join(spool, "operator-dropped.eml"), []byte("no headers here"), 0o600)
	os.WriteFile(filepath.Join(spool, ".half-written.eml.123.tmp"), []byte("From: a@b.test\r\n"), 0o600)
	q.RetryNow(context.Background())
	if failed := emlFiles(t, filepath.Join(q.dir, FailedDir)); len(failed) != 1 || failed[0] != "operator-dropped.eml" {
		t.Errorf("failed %q", failed)
	}
	if n := len(srv.recorded()); n != 0 {
		t.Errorf("%d conversations for files that are no message", n)
	}
	if _, err := os.Stat(filepath.Join(spool, ".half-written.eml.123.tmp")); err != nil {
		t.Errorf("a temporary file was touched: %v", err)
	}
}

func TestQueueSendFailsWhenItCannotSpool(t *testing.T) {
	srv := startFakeSMTP(t)
	srv.setRcptCode(451)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	q := newTestQueue(t, srv, blocker) // the outbox folder is a file: no spool
	err := q.Send(context.Background(), signIn)
	if err == nil || !strings.Contains(err.Error(), "451") || !strings.Contains(err.Error(), "nor kept") {
		t.Fatalf("err %v; want not sent and not spooled", err)
	}
	if err := q.Send(context.Background(), Message{To: "a@b.test\nBcc: c@d.test"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid message: %v", err)
	}
}

func TestQueueStop(t *testing.T) {
	q := newTestQueue(t, startFakeSMTP(t), t.TempDir())
	if err := q.Stop(context.Background()); err != nil {
		t.Errorf("stop before start: %v", err)
	}
	if err := q.Stop(context.Background()); err != nil {
		t.Errorf("second stop: %v", err)
	}
	if _, err := NewQueue(nil, QueueConfig{Dir: "x"}); err == nil {
		t.Error("no sender accepted")
	}
}

func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{30 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, time.Hour}
	for n, w := range want {
		if got := DefaultBackoff(n); got != w {
			t.Errorf("DefaultBackoff(%d) = %v; want %v", n, got, w)
		}
	}
}
