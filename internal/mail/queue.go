package mail

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Queue.
const (
	// DefaultGiveUpAfter is how long a message is retried before it is
	// moved to the failed folder.
	DefaultGiveUpAfter = 24 * time.Hour
	// DefaultPoll is how often the worker looks for messages due.
	DefaultPoll = 10 * time.Second
)

// Folders of a Queue under its outbox folder.
const (
	// SpoolDir holds the messages waiting for another try.
	SpoolDir = "spool"
	// FailedDir holds the messages given up on, for an operator to read.
	FailedDir = "failed"
)

// DefaultBackoff is the wait after the n-th failed try (n ≥ 1): 30 s, 2 min,
// 10 min, then every hour.
func DefaultBackoff(n int) time.Duration {
	steps := []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}
	return steps[min(max(n, 1), len(steps))-1]
}

// Queue is the Sender through SMTP that loses nothing: a message the
// server does not take is written to the spool folder (the same .eml a
// plain outbox holds) and Send returns nil; a worker retries spooled
// messages with a growing wait, removes each once sent, and after
// GiveUpAfter moves it to the failed folder with an error in the log.
// Messages a previous process spooled are retried when the worker starts.
//
// How often a message was tried lives in memory: after a restart the
// waits start again from the first, the time given up after does not
// (it counts from the time in the file's name).
type Queue struct {
	smtp          *SMTP
	spool, failed string
	log           *slog.Logger
	now           func() time.Time
	backoff       func(int) time.Duration
	giveUpAfter   time.Duration
	poll          time.Duration

	mu      sync.Mutex          // guards pending and the spool's listing
	pending map[string]*attempt // by spool file name
	retryMu sync.Mutex          // one retry pass at a time

	ctx              context.Context // of the worker's conversations
	cancel           context.CancelFunc
	started          atomic.Bool
	startOnce        sync.Once
	stopOnce         sync.Once
	stopping, exited chan struct{}
}

// attempt is what the queue knows of one spooled message.
type attempt struct {
	tries int       // failed tries so far
	next  time.Time // when to try again
	seen  time.Time // when this process first saw it
}

// QueueConfig is what a Queue needs besides its SMTP sender.
type QueueConfig struct {
	// Dir is the outbox folder; the spool and failed folders are made in
	// it (mode 0700) when first needed.
	Dir string
	// Logger receives the queue's lines; slog.Default when nil.
	Logger *slog.Logger
	// Now is the queue's clock; time.Now when nil.
	Now func() time.Time
	// Backoff is the wait after the n-th failed try; DefaultBackoff when nil.
	Backoff func(n int) time.Duration
	// GiveUpAfter is how long a message is retried; DefaultGiveUpAfter
	// when zero.
	GiveUpAfter time.Duration
	// Poll is how often the worker looks at the spool; DefaultPoll when zero.
	Poll time.Duration
}

// NewQueue returns the queue of s over c. Start starts its worker.
func NewQueue(s *SMTP, c QueueConfig) (*Queue, error) {
	if s == nil {
		return nil, errors.New("mail queue: no SMTP sender")
	}
	if c.Dir == "" {
		return nil, errors.New("mail queue: no outbox folder")
	}
	q := &Queue{smtp: s, spool: filepath.Join(c.Dir, SpoolDir), failed: filepath.Join(c.Dir, FailedDir),
		log: loggerOr(c.Logger), now: clockOr(c.Now), backoff: c.Backoff, giveUpAfter: c.GiveUpAfter, poll: c.Poll,
		pending: map[string]*attempt{}, stopping: make(chan struct{}), exited: make(chan struct{})}
	if q.backoff == nil {
		q.backoff = DefaultBackoff
	}
	if q.giveUpAfter <= 0 {
		q.giveUpAfter = DefaultGiveUpAfter
	}
	if q.poll <= 0 {
		q.poll = DefaultPoll
	}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	return q, nil
}

// Send hands m to the server, or else spools it for another try. An error
// means the message is invalid (ErrInvalid) or could not even be spooled.
func (q *Queue) Send(ctx context.Context, m Message) error {
	now := q.now()
	l, err := compose(q.smtp.from, m, now)
	if err != nil {
		return err
	}
	sendErr := q.smtp.deliver(ctx, l)
	if sendErr == nil {
		return nil
	}
	path, err := q.spoolLetter(l, now)
	if err != nil {
		q.log.Error("mail not sent and not spooled", "domain", l.domain(), "err", sendErr, "spool_err", err)
		return fmt.Errorf("mail not sent (%w) nor kept for another try: %w", sendErr, err)
	}
	q.log.Warn("mail not sent; spooled for another try", "file", path, "domain", l.domain(),
		"retry_in", q.backoff(1), "err", sendErr)
	return nil
}

// spoolLetter writes l to the spool as tried once at now.
func (q *Queue) spoolLetter(l letter, now time.Time) (string, error) {
	name, err := emlName(now)
	if err != nil {
		return "", err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	path, err := writeEML(q.spool, name, l.raw)
	if err != nil {
		return "", err
	}
	q.pending[name] = &attempt{tries: 1, next: now.Add(q.backoff(1)), seen: now}
	return path, nil
}

// Start starts the worker: it retries what is due at once (what a previous
// process spooled is due), then every Poll.
func (q *Queue) Start() {
	q.startOnce.Do(func() {
		q.started.Store(true)
		go q.work()
	})
}

func (q *Queue) work() {
	defer close(q.exited)
	t := time.NewTicker(q.poll)
	defer t.Stop()
	for {
		q.RetryNow(q.ctx)
		select {
		case <-q.stopping:
			return
		case <-t.C:
		}
	}
}

// Stop stops the worker, letting a conversation in progress finish until
// ctx ends; what is still spooled is retried by the next process.
func (q *Queue) Stop(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stopping) })
	if !q.started.Load() {
		q.cancel()
		return nil
	}
	select {
	case <-q.exited:
		q.cancel()
		return nil
	case <-ctx.Done():
		q.cancel()
		<-q.exited
		return fmt.Errorf("mail queue: stop: %w", ctx.Err())
	}
}

// RetryNow tries each spooled message that is due, one after another, and
// returns when done or when ctx ends. The worker calls it every Poll.
func (q *Queue) RetryNow(ctx context.Context) {
	q.retryMu.Lock()
	defer q.retryMu.Unlock()
	due, err := q.due(q.now())
	if err != nil {
		q.log.Error("mail spool unreadable", "dir", q.spool, "err", err)
		return
	}
	for _, name := range due {
		if ctx.Err() != nil {
			return
		}
		q.retry(ctx, name)
	}
}

// due lists the spool and returns the names of the messages due at now,
// in the order they were spooled; it forgets messages no longer there.
func (q *Queue) due(now time.Time) ([]string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	entries, err := os.ReadDir(q.spool)
	if errors.Is(err, fs.ErrNotExist) {
		clear(q.pending)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names, due []string
	for _, e := range entries {
		if name := e.Name(); e.Type().IsRegular() && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, emlSuffix) {
			names = append(names, name)
		}
	}
	for name := range q.pending {
		if !slices.Contains(names, name) {
			delete(q.pending, name)
		}
	}
	for _, name := range names {
		a := q.pending[name]
		if a == nil {
			a = &attempt{next: now, seen: now}
			q.pending[name] = a
		}
		if !now.Before(a.next) {
			due = append(due, name)
		}
	}
	return due, nil
}

// retry tries the spooled message name once more.
func (q *Queue) retry(ctx context.Context, name string) {
	path := filepath.Join(q.spool, name)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return // taken away meanwhile; the next listing forgets it
	}
	if err != nil {
		q.failedTry(name, "", err)
		return
	}
	l, err := readLetter(raw)
	if err != nil {
		q.giveUp(name, "", 0, err) // no try can send it
		return
	}
	err = q.smtp.deliver(ctx, l)
	switch {
	case err == nil:
		tries := q.forget(name) + 1
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			q.log.Error("spooled mail sent but not removed from the spool: it will be sent again", "file", path, "err", err)
		}
		q.log.Info("spooled mail sent", "file", path, "domain", l.domain(), "tries", tries)
	case ctx.Err() != nil:
		// Stopping: the try does not count; the next process makes it.
	default:
		q.failedTry(name, l.domain(), err)
	}
}

// failedTry counts a failed try of name and schedules the next, or gives
// up once the message is older than GiveUpAfter.
func (q *Queue) failedTry(name, domain string, err error) {
	now := q.now()
	q.mu.Lock()
	a := q.pending[name]
	if a == nil {
		a = &attempt{seen: now}
		q.pending[name] = a
	}
	a.tries++
	tries, wait := a.tries, q.backoff(a.tries)
	a.next = now.Add(wait)
	since, ok := emlWritten(name)
	if !ok {
		since = a.seen
	}
	q.mu.Unlock()
	if now.Sub(since) >= q.giveUpAfter {
		q.giveUp(name, domain, tries, err)
		return
	}
	q.log.Warn("spooled mail not sent; will retry", "file", filepath.Join(q.spool, name), "domain", domain,
		"tries", tries, "retry_in", wait, "err", err)
}

// giveUp moves name from the spool to the failed folder and says so at
// ERROR. If it cannot be moved it stays spooled and is retried.
func (q *Queue) giveUp(name, domain string, tries int, cause error) {
	from := filepath.Join(q.spool, name)
	to := filepath.Join(q.failed, name)
	err := os.MkdirAll(q.failed, 0o700)
	if err == nil {
		err = os.Rename(from, to)
	}
	if err != nil {
		q.mu.Lock()
		if a := q.pending[name]; a != nil {
			a.next = q.now().Add(q.backoff(max(a.tries, 1)))
		}
		q.mu.Unlock()
		q.log.Error("mail given up on but not moved to the failed folder; it stays spooled", "file", from,
			"domain", domain, "tries", tries, "err", cause, "move_err", err)
		return
	}
	syncDir(q.failed)
	q.forget(name)
	q.log.Error("mail not delivered; given up and moved to the failed folder", "file", to, "domain", domain,
		"tries", tries, "err", cause)
}

// forget drops what the queue knows of name and returns its failed tries.
func (q *Queue) forget(name string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	tries := 0
	if a := q.pending[name]; a != nil {
		tries = a.tries
	}
	delete(q.pending, name)
	return tries
}
