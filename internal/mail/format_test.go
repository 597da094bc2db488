package mail

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"
)

var testTime = time.Date(2025, 3, 14, 9, 26, 53, 589793238, time.FixedZone("CET", 3600))

// parseLetter parses raw back as net/mail reads it and returns the
// message and its body decoded as its Content-Transfer-Encoding says.
func parseLetter(t *testing.T, raw []byte) (*mail.Message, string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("does not parse: %v\n%s", err, raw)
	}
	var r io.Reader = msg.Body
	switch cte := msg.Header.Get("Content-Transfer-Encoding"); cte {
	case "quoted-printable":
		r = quotedprintable.NewReader(msg.Body)
	case "7bit":
	default:
		t.Fatalf("Content-Transfer-Encoding %q", cte)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("body does not decode: %v", err)
	}
	return msg, string(body)
}

func TestComposeWritesRFC5322(t *testing.T) {
	link := "https://fragrance.test/portal/signin?token=" + strings.Repeat("Ab9_-", 20)
	text := "Hello,\n\nsign in with this link (valid 15 minutes):\n" + link + "\n\nCafé = ½ price. \nBye"
	m := Message{To: "Dev Eloper <dev@example.org>", Subject: "Ihr Anmeldelink für Düfte ✓ — " + strings.Repeat("lang ", 12), Text: text}
	l, err := compose("Fragrance <noreply@fragrance.test>", m, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if l.from != "noreply@fragrance.test" || l.to != "dev@example.org" || l.domain() != "example.org" {
		t.Errorf("envelope %q → %q (domain %q)", l.from, l.to, l.domain())
	}
	raw := string(l.raw)
	if strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\n") || strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\r") {
		t.Errorf("a line ends without CRLF:\n%q", raw)
	}
	head, bodyText, _ := strings.Cut(raw, "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		if len(line) > 998 {
			t.Errorf("header line of %d bytes: %q", len(line), line)
		}
	}
	for _, line := range strings.Split(bodyText, "\r\n") {
		if len(line) > 76 {
			t.Errorf("body line of %d bytes: %q", len(line), line)
		}
	}
	msg, body := parseLetter(t, l.raw)
	h := msg.Header
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(h.Get("Subject"))
	if err != nil || subject != m.Subject {
		t.Errorf("Subject %q decodes to %q (%v); want %q", h.Get("Subject"), subject, err, m.Subject)
	}
	if strings.Contains(h.Get("Subject"), "ü") {
		t.Errorf("Subject not encoded: %q", h.Get("Subject"))
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != "dev@example.org" || to[0].Name != "Dev Eloper" {
		t.Errorf("To %q: %v %v", h.Get("To"), to, err)
	}
	if from, err := h.AddressList("From"); err != nil || from[0].Address != "noreply@fragrance.test" {
		t.Errorf("From %q: %v %v", h.Get("From"), from, err)
	}
	if d, err := h.Date(); err != nil || !d.Equal(testTime.Truncate(time.Second)) {
		t.Errorf("Date %q: %v %v", h.Get("Date"), d, err)
	}
	if id := h.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@fragrance.test>") || len(id) < 30 {
		t.Errorf("Message-ID %q", id)
	}
	for name, want := range map[string]string{"MIME-Version": "1.0", "Content-Type": "text/plain; charset=utf-8",
		"Content-Transfer-Encoding": "quoted-printable"} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %q; want %q", name, got, want)
		}
	}
	if want := strings.ReplaceAll(text, "\n", "\r\n") + "\r\n"; body != want {
		t.Errorf("body decodes to\n%q\nwant\n%q", body, want)
	}
	if !strings.Contains(strings.ReplaceAll(body, "\r\n", ""), link) {
		t.Errorf("the link did not survive")
	}

	again, err := compose("Fragrance <noreply@fragrance.test>", m, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if again2, _ := parseLetter(t, again.raw); again2.Header.Get("Message-ID") == h.Get("Message-ID") {
		t.Errorf("two messages share a Message-ID")
	}
}

// A message of plain ASCII lines (the sign-in mail) is sent as written:
// its link whole on one line of the raw .eml, for a person to copy.
func TestComposePlainTextKeepsLinksOnOneLine(t *testing.T) {
	link := "http://127.0.0.1:8080/developer/signin?token=" + strings.Repeat("Ab9_-", 9)
	text := "Hello,\n\nopen this link:\n\n" + link + "\n\nIt works once, for 15 minutes.\n"
	l, err := compose("noreply@fragrance.test", Message{To: "dev@example.org", Subject: "Sign in", Text: text}, testTime)
	if err != nil {
		t.Fatal(err)
	}
	msg, body := parseLetter(t, l.raw)
	if cte := msg.Header.Get("Content-Transfer-Encoding"); cte != "7bit" {
		t.Errorf("Content-Transfer-Encoding %q; want 7bit", cte)
	}
	if !bytes.Contains(l.raw, []byte("\r\n"+link+"\r\n")) {
		t.Errorf("the link is not whole on a line of its own:\n%s", l.raw)
	}
	if want := strings.ReplaceAll(text, "\n", "\r\n"); body != want {
		t.Errorf("body %q; want %q", body, want)
	}
}

// Text that cannot travel as written (not ASCII, a line past 998 octets,
// a line ending in a space) is sent quoted-printable, which keeps it exact.
func TestComposeQuotesWhatPlainTextCannotCarry(t *testing.T) {
	for name, text := range map[string]string{
		"not ASCII":      "Grüße",
		"long line":      strings.Repeat("x", 999),
		"trailing space": "hello \nworld",
		"control":        "a\x00b",
	} {
		t.Run(name, func(t *testing.T) {
			l, err := compose("noreply@fragrance.test", Message{To: "dev@example.org", Subject: "s", Text: text}, testTime)
			if err != nil {
				t.Fatal(err)
			}
			msg, body := parseLetter(t, l.raw)
			if cte := msg.Header.Get("Content-Transfer-Encoding"); cte != "quoted-printable" {
				t.Errorf("Content-Transfer-Encoding %q; want quoted-printable", cte)
			}
			if strings.TrimSuffix(strings.ReplaceAll(body, "\r\n", "\n"), "\n") != text {
				t.Errorf("body %q; want %q", body, text)
			}
		})
	}
	if l, err := compose("noreply@fragrance.test", Message{To: "dev@example.org", Subject: "s", Text: strings.Repeat("x", 998)}, testTime); err != nil ||
		!bytes.Contains(l.raw, []byte("7bit")) {
		t.Errorf("a line of 998 octets is not sent as written: %v", err)
	}
}

func TestComposeASCIISubjectStaysReadable(t *testing.T) {
	l, err := compose("noreply@fragrance.test", Message{To: "a@b.test", Subject: "Your sign-in link", Text: "x"}, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(l.raw, []byte("\r\nSubject: Your sign-in link\r\n")) {
		t.Errorf("subject:\n%s", l.raw)
	}
}

func TestComposeRefusesInvalid(t *testing.T) {
	ok := Message{To: "dev@example.org", Subject: "Sign in", Text: "hi"}
	cases := []struct {
		name, from string
		m          Message
		want       string
	}{
		{"header in To", "", Message{To: "dev@example.org\r\nBcc: victim@example.org", Subject: "x"}, "To contains a line break"},
		{"LF in To", "", Message{To: "dev@example.org\nBcc: v@x.test", Subject: "x"}, "To contains a line break"},
		{"header in Subject", "", Message{To: "dev@example.org", Subject: "Hi\r\nBcc: victim@example.org"}, "Subject contains a line break"},
		{"CR in Subject", "", Message{To: "dev@example.org", Subject: "Hi\rthere"}, "Subject contains a line break"},
		{"header in From", "noreply@fragrance.test\r\nBcc: v@x.test", ok, "From contains a line break"},
		{"no To", "", Message{Subject: "x"}, "To is empty"},
		{"To not an address", "", Message{To: "not an address", Subject: "x"}, "is not an email address"},
		{"two recipients", "", Message{To: "a@x.test, b@x.test", Subject: "x"}, "is not an email address"},
		{"long subject", "", Message{To: "dev@example.org", Subject: strings.Repeat("x", 201)}, "at most 200"},
		{"bad UTF-8 subject", "", Message{To: "dev@example.org", Subject: "\xff"}, "not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			from := c.from
			if from == "" {
				from = "noreply@fragrance.test"
			}
			_, err := compose(from, c.m, testTime)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v; want ErrInvalid saying %q", err, c.want)
			}
		})
	}
}

// FuzzCompose: whatever a visitor types, a message either is refused as
// invalid or parses back with exactly our headers and the text as body.
func FuzzCompose(f *testing.F) {
	f.Add("dev@example.org", "Sign in", "hello\nworld")
	f.Add("Dévé <dev@example.org>", "Grüße ✓", "=3D \r\n.\r\n.. trailing ")
	f.Add("dev@example.org\r\nBcc: x@y.z", "s", "t")
	f.Add(`"a\"b" <a@b.c>`, "=?utf-8?q?x?=", "\x00\xff")
	f.Fuzz(func(t *testing.T, to, subject, text string) {
		l, err := compose("noreply@fragrance.test", Message{To: to, Subject: subject, Text: text}, testTime)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not ErrInvalid: %v", err)
			}
			return
		}
		msg, body := parseLetter(t, l.raw)
		if len(msg.Header) != 9 {
			t.Fatalf("headers %v; want our 9", msg.Header)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\r\n", "\n"), "\r", "\n")
		if got := strings.ReplaceAll(body, "\r\n", "\n"); strings.TrimSuffix(got, "\n") != strings.TrimSuffix(want, "\n") {
			t.Fatalf("body %q; want %q", got, want)
		}
		back, err := readLetter(l.raw)
		if err != nil || back.to != l.to || back.from != l.from {
			t.Fatalf("read back: %+v %v; want to %q", back, err, l.to)
		}
	})
}
