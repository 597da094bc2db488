package account

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// maxEmail bounds an address (RFC 5321's path limit).
const maxEmail = 254

// NormalizeEmail returns the address in s, trimmed, with its domain in
// lower case, or an error wrapping catalog.ErrInvalid when s is not one
// plain address: no display name, no list, valid UTF-8, at most 254
// bytes, a domain name with a dot (not a domain literal such as
// [127.0.0.1], which no mailbox a developer reads has).
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not an email address: %w", clip(s), catalog.ErrInvalid)
	if s == "" || len(s) > maxEmail || !utf8.ValidString(s) || strings.ContainsAny(s, "<>,;\"\r\n\t ") {
		return "", bad
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", bad
	}
	local, domain, ok := strings.Cut(a.Address, "@")
	if !ok || local == "" || !strings.Contains(strings.Trim(domain, "."), ".") || strings.ContainsAny(domain, "[]") {
		return "", bad
	}
	return local + "@" + strings.ToLower(domain), nil
}

// FoldEmail is the address of s as an account knows it: NormalizeEmail's,
// with the ASCII letters of its local part in lower case too, so that
// Dev@example.com and dev@example.com are one account, as mailbox
// providers deliver them to one mailbox. Dots and +tags are kept (a
// provider may or may not ignore them); letters outside ASCII are kept as
// typed, as the stores' SQL folds them (lower() of SQLite, translate() of
// PostgreSQL's migration).
func FoldEmail(s string) (string, error) {
	email, err := NormalizeEmail(s)
	if err != nil {
		return "", err
	}
	b := []byte(email)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b), nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}
