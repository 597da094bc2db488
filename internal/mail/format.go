package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrInvalid reports a message that cannot be written as mail: an address
// that does not parse, a header with a line break in it (an attempt to add
// headers of one's own), a subject too long. Sending it again cannot help.
var ErrInvalid = errors.New("invalid message")

// maxSubject bounds a subject, in characters: ours are a few words.
const maxSubject = 200

// letter is a message written out: the envelope addresses an SMTP server
// is given and the RFC 5322 text, CRLF line endings, that both the server
// and an .eml file receive.
type letter struct {
	from, to string // bare addresses (no display names)
	raw      []byte
}

// domain is the part of the recipient's address after @, the one detail of
// a message the logs name.
func (l letter) domain() string { return domainOf(l.to) }

// compose writes m from the address from at time now. from may carry a
// display name ("Fragrance <noreply@example.com>").
func compose(from string, m Message, now time.Time) (letter, error) {
	sender, err := parseAddress("From", from)
	if err != nil {
		return letter{}, err
	}
	rcpt, err := parseAddress("To", m.To)
	if err != nil {
		return letter{}, err
	}
	subject, err := encodeSubject(m.Subject)
	if err != nil {
		return letter{}, err
	}
	id, err := messageID(domainOf(sender.Address))
	if err != nil {
		return letter{}, err
	}
	var b bytes.Buffer
	header := func(name, value string) { b.WriteString(name + ": " + value + "\r\n") }
	header("From", sender.String())
	header("To", rcpt.String())
	header("Subject", subject)
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", id)
	header("Auto-Submitted", "auto-generated")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	// One kind of line break, written as CRLF below.
	text := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(strings.ToValidUTF8(m.Text, "\uFFFD"))
	if plain(text) {
		// As typed: a link stays whole on its line, so a person can copy it
		// from the raw .eml file, and every reader shows it as written.
		header("Content-Transfer-Encoding", "7bit")
		b.WriteString("\r\n")
		b.WriteString(strings.ReplaceAll(text, "\n", "\r\n"))
	} else {
		header("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		body := quotedprintable.NewWriter(&b)
		if _, err := body.Write([]byte(text)); err != nil {
			return letter{}, err
		}
		if err := body.Close(); err != nil {
			return letter{}, err
		}
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return letter{from: sender.Address, to: rcpt.Address, raw: b.Bytes()}, nil
}

// maxLine is the longest line a 7bit body may hold, in octets without its
// CRLF (RFC 5322, section 2.1.1).
const maxLine = 998

// plain reports whether text (its lines ended by LF alone) can travel as
// it is, as a 7bit body: printable ASCII and tabs only, every line at most
// maxLine octets, none ending in a space or a tab (which transports may
// strip). Anything else is sent quoted-printable, which keeps it exact.
func plain(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if len(line) > maxLine || strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c < ' ' && c != '\t') || c > '~' {
				return false
			}
		}
	}
	return true
}

// parseAddress parses one address of header name, refusing line breaks
// before the parser sees them so the error says what was wrong.
func parseAddress(name, s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("%w: %s contains a line break", ErrInvalid, name)
	}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: %s is empty", ErrInvalid, name)
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q is not an email address: %v", ErrInvalid, name, s, err)
	}
	return a, nil
}

// encodeSubject checks a subject and encodes it (RFC 2047) when it is not
// plain ASCII, folding between encoded words to keep lines short.
func encodeSubject(s string) (string, error) {
	switch {
	case strings.ContainsAny(s, "\r\n"):
		return "", fmt.Errorf("%w: Subject contains a line break", ErrInvalid)
	case !utf8.ValidString(s):
		return "", fmt.Errorf("%w: Subject is not valid UTF-8", ErrInvalid)
	case utf8.RuneCountInString(s) > maxSubject:
		return "", fmt.Errorf("%w: Subject is %d characters; at most %d", ErrInvalid, utf8.RuneCountInString(s), maxSubject)
	}
	enc := mime.QEncoding.Encode("utf-8", s)
	return strings.ReplaceAll(enc, "?= =?", "?=\r\n =?"), nil
}

// messageID is a new, random Message-ID at domain.
func messageID(domain string) (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("message id: %w", err)
	}
	return "<" + hex.EncodeToString(r[:]) + "@" + domain + ">", nil
}

// domainOf is the part of an address after its last @.
func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

// readLetter recovers a letter from its RFC 5322 text (a spooled .eml
// file): the envelope addresses come from its From and To headers.
func readLetter(raw []byte) (letter, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return letter{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	from, err := parseAddress("From", msg.Header.Get("From"))
	if err != nil {
		return letter{}, err
	}
	to, err := parseAddress("To", msg.Header.Get("To"))
	if err != nil {
		return letter{}, err
	}
	return letter{from: from.Address, to: to.Address, raw: raw}, nil
}
