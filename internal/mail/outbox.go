package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultFrom is the From address of outbox messages when the operator
// named none.
const DefaultFrom = "Fragrance <fragrance@localhost>"

// Outbox is the Sender without a mail server: it writes each message as one
// RFC 5322 .eml file in a folder, named so that the files sort by the time
// they were written, and logs that it did.
type Outbox struct {
	dir, from string
	log       *slog.Logger
	now       func() time.Time
}

// OutboxConfig is what an Outbox needs.
type OutboxConfig struct {
	// Dir is the folder, created (mode 0700) with the first message.
	Dir string
	// From is the From address; DefaultFrom when empty.
	From string
	// Logger receives a line for each message; slog.Default when nil.
	Logger *slog.Logger
	// Now is the clock of the Date header and the file names; time.Now
	// when nil.
	Now func() time.Time
}

// NewOutbox returns the outbox of c. It creates nothing yet: the folder
// appears with the first message.
func NewOutbox(c OutboxConfig) (*Outbox, error) {
	if c.Dir == "" {
		return nil, errors.New("mail outbox: no folder")
	}
	if c.From == "" {
		c.From = DefaultFrom
	}
	if _, err := parseAddress("From", c.From); err != nil {
		return nil, fmt.Errorf("mail outbox: %w", err)
	}
	return &Outbox{dir: c.Dir, from: c.From, log: loggerOr(c.Logger), now: clockOr(c.Now)}, nil
}

// Dir is the outbox folder.
func (o *Outbox) Dir() string { return o.dir }

// Send writes m to the outbox. An error means no file was written.
func (o *Outbox) Send(_ context.Context, m Message) error {
	now := o.now()
	l, err := compose(o.from, m, now)
	if err != nil {
		return err
	}
	name, err := emlName(now)
	if err != nil {
		return err
	}
	path, err := writeEML(o.dir, name, l.raw)
	if err != nil {
		return err
	}
	o.log.Info("mail written to outbox", "file", path, "domain", l.domain())
	return nil
}

// emlSuffix ends the name of every message file; other files in the
// folders (a write in progress) are not messages.
const emlSuffix = ".eml"

// emlTime is the time part of a message file's name: UTC, fixed width, so
// names sort as times do.
const emlTime = "20060102T150405.000000000Z"

// emlName is a new file name for a message written at t.
func emlName(t time.Time) (string, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("mail file name: %w", err)
	}
	return t.UTC().Format(emlTime) + "-" + hex.EncodeToString(r[:]) + emlSuffix, nil
}

// emlWritten is the time in a message file's name; ok is false for a name
// that is not one of ours.
func emlWritten(name string) (t time.Time, ok bool) {
	stamp, _, found := strings.Cut(name, "-")
	if !found || !strings.HasSuffix(name, emlSuffix) {
		return time.Time{}, false
	}
	t, err := time.Parse(emlTime, stamp)
	return t, err == nil
}

// writeEML writes raw as the message file name (from emlName) in dir,
// created with mode 0700 if need be, and returns its path. The file appears
// whole or not at all: it is written under a hidden temporary name, synced,
// then renamed.
func writeEML(dir, name string, raw []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("mail folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("mail file: %w", err)
	}
	_, err = tmp.Write(raw)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	path := filepath.Join(dir, name)
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("mail file %s: %w", path, err)
	}
	syncDir(dir)
	return path, nil
}

// syncDir makes a rename in dir durable where the system allows it; where
// it does not, the rename stands as the system keeps it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// loggerOr is l, or the default logger for nil.
func loggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// clockOr is now, or time.Now for nil.
func clockOr(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
