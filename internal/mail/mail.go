// Package mail sends the service's few messages (the developer portal's
// sign-in links): through SMTP when the operator configured a server, or
// else as RFC 5322 .eml files in an outbox folder an operator (or a test)
// can read. A message that cannot be sent is kept and retried, never
// dropped silently.
package mail

import "context"

// Message is one plain-text message to one address.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender delivers messages. Send returns once the message is delivered or
// safely queued for another try; an error means it was neither.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// The senders.
var (
	_ Sender = (*Outbox)(nil)
	_ Sender = (*SMTP)(nil)
	_ Sender = (*Queue)(nil)
)
