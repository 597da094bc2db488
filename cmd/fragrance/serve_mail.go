package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/fragrance-data/fragrance/internal/mail"
)

// addMailFlags adds the flags of outgoing mail (the developer portal's
// sign-in links) to serve's.
func addMailFlags(f *flags, c *serveConfig) {
	c.smtpURL = f.String("smtp-url", "", "send mail through this SMTP server, smtp://user:pass@host:port (STARTTLS when offered; port 587 by default) or smtps://… (TLS; 465); needs --mail-from. Without it, mail is written to --mail-outbox")
	c.mailFrom = f.String("mail-from", "", "From address of the mail sent through --smtp-url, e.g. 'Fragrance <noreply@example.com>'")
	c.mailOutbox = f.String("mail-outbox", "", "folder where mail is written as .eml files when there is no --smtp-url, and where mail the SMTP server did not take waits (spool/) or was given up on (failed/) (default outbox/ beside the SQLite file; ./outbox with PostgreSQL)")
}

// mailOutbox is the outbox folder: --mail-outbox, or else outbox/ beside
// the SQLite database, or ./outbox with PostgreSQL (no file to be beside).
func mailOutbox(c *serveConfig) string {
	switch {
	case *c.mailOutbox != "":
		return *c.mailOutbox
	case isPostgres(*c.dsn):
		return "outbox"
	}
	return filepath.Join(filepath.Dir(*c.dsn), "outbox")
}

// newMailer builds the Sender of outgoing mail from the flags: the SMTP
// server with its spool when --smtp-url and --mail-from are set, else the
// outbox folder. It logs which; stop ends the SMTP spool's retries.
func newMailer(c *serveConfig, log *slog.Logger) (_ mail.Sender, stop func(context.Context) error, _ error) {
	smtpURL, from, dir := *c.smtpURL, *c.mailFrom, mailOutbox(c)
	switch {
	case smtpURL == "" && from == "":
		o, err := mail.NewOutbox(mail.OutboxConfig{Dir: dir, Logger: log})
		if err != nil {
			return nil, nil, fmt.Errorf("--mail-outbox: %w", err)
		}
		log.Info("mail is written to the outbox folder (no --smtp-url)", "outbox", dir)
		return o, func(context.Context) error { return nil }, nil
	case smtpURL == "":
		return nil, nil, errors.New("--mail-from is set but --smtp-url is not: set both to send mail through SMTP, or neither to write it to the outbox folder")
	case from == "":
		return nil, nil, fmt.Errorf("--smtp-url %s is set but --mail-from is not: SMTP needs the From address of the mail", redactDSN(smtpURL))
	}
	s, err := mail.NewSMTP(mail.SMTPConfig{URL: smtpURL, From: from, Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("--smtp-url %s, --mail-from %q: %w", redactDSN(smtpURL), from, err)
	}
	q, err := mail.NewQueue(s, mail.QueueConfig{Dir: dir, Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("--mail-outbox: %w", err)
	}
	q.Start()
	log.Info("mail is sent through SMTP", "smtp", redactDSN(smtpURL), "from", from,
		"spool", filepath.Join(dir, mail.SpoolDir))
	return q, q.Stop, nil
}
