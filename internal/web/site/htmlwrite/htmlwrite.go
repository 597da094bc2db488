// Package htmlwrite writes strings into an HTML page escaped as
// html/template escapes them, one function per context: the code that
// package tplgen generates from a template calls them where html/template
// would call its escapers, so that the generated writer makes the
// template's bytes without reflection. Each function does, byte for byte,
// what html/template's escapers do to a plain string (not one of its
// typed contents, such as template.HTML) in its context; FuzzWriters
// compares them with html/template.
package htmlwrite

import "strings"

// Text writes s as html/template escapes a string in HTML text, in
// RCDATA (title, textarea) and in a quoted attribute that is not a URL:
// NUL, quotes, &, + and angle brackets are replaced; every other byte,
// invalid UTF-8 included, passes as it is.
func Text(b *strings.Builder, s string) {
	from := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case 0:
			r = "\uFFFD"
		case '"':
			r = "&#34;"
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '+':
			r = "&#43;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		default:
			continue
		}
		b.WriteString(s[from:i])
		b.WriteString(r)
		from = i + 1
	}
	b.WriteString(s[from:])
}

// URL writes s as html/template writes a string that makes a whole href
// or src attribute (or its start): a scheme other than http, https or
// mailto becomes "#ZgotmplZ"; otherwise s is written as URLPart writes it.
func URL(b *strings.Builder, s string) {
	if !safeURL(s) {
		b.WriteString("#ZgotmplZ")
		return
	}
	URLPart(b, s)
}

// URLPart writes s as html/template writes a string in a URL attribute
// after its start, before any query ("/notes/{{.}}"): bytes that do not
// belong in a URL are percent-encoded (valid escapes are kept), then &
// and + are escaped for the attribute. No scheme is checked: the URL's
// start is the template's.
func URLPart(b *strings.Builder, s string) {
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved(c):
			continue
		case strings.IndexByte("!#$*,/:;=?@[]", c) >= 0:
			continue
		case c == '&':
			b.WriteString(s[from:i])
			b.WriteString("&amp;")
		case c == '+':
			b.WriteString(s[from:i])
			b.WriteString("&#43;")
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			continue
		default:
			b.WriteString(s[from:i])
			percent(b, c)
		}
		from = i + 1
	}
	// What is left holds none of the bytes Text escapes.
	b.WriteString(s[from:])
}

// Query writes s as html/template writes a string in a URL attribute's
// query or fragment ("/search?q={{.}}"): every byte but letters, digits
// and -._~ is percent-encoded, which leaves nothing for the attribute to
// escape.
func Query(b *strings.Builder, s string) {
	from := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; !unreserved(c) {
			b.WriteString(s[from:i])
			percent(b, c)
			from = i + 1
		}
	}
	b.WriteString(s[from:])
}

// safeURL is html/template's test of a URL's scheme: none, or http,
// https or mailto in any case.
func safeURL(s string) bool {
	if protocol, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(protocol, "/") {
		return strings.EqualFold(protocol, "http") || strings.EqualFold(protocol, "https") || strings.EqualFold(protocol, "mailto")
	}
	return true
}

// unreserved reports whether c is a letter, a digit or one of -._~,
// which no URL context encodes.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// percent writes c percent-encoded, in lower-case hex as html/template does.
func percent(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
