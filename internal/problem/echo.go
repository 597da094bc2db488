package problem

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a client sent is repeated in a problem only so far: a detail quotes
// such a value (%q, strconv.Quote), and every quoted string of a detail or
// of a field error's message longer than MaxEcho characters is shortened to
// its first MaxEcho and an ellipsis when the problem is written. MaxText
// then bounds the whole text, for a value echoed without quotes. Shortening
// here, where every problem is written, keeps an error answer small
// whatever was sent (a 100,000-character slug) and whichever code built
// its detail.
const (
	MaxEcho = 100
	MaxText = 1000
)

// shorten bounds a detail or a message: each quoted string to MaxEcho
// characters, the whole to MaxText.
func shorten(s string) string {
	if len(s) <= MaxEcho { // no quoted string can be too long
		return s
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '"')
		if open < 0 {
			break
		}
		end := closingQuote(s, open)
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		b.WriteString(shortQuoted(s[open : end+1]))
		s = s[end+1:]
	}
	b.WriteString(s)
	return capRunes(b.String(), MaxText)
}

// closingQuote is the index of the quote closing the one at open, skipping
// backslash escapes; -1 when there is none.
func closingQuote(s string, open int) int {
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// shortQuoted shortens one Go-quoted string to MaxEcho characters of its
// value; text that does not unquote is left to capRunes.
func shortQuoted(q string) string {
	v, err := strconv.Unquote(q)
	if err != nil || len(v) <= MaxEcho || utf8.RuneCountInString(v) <= MaxEcho {
		return q
	}
	return strconv.Quote(Echo(v))
}

// Echo is s, something a client sent, as an answer may repeat it: cut
// after MaxEcho characters, with an ellipsis. Problems shorten their
// quoted values themselves; other answers (pages) call Echo.
func Echo(s string) string { return capRunes(s, MaxEcho) }

// capRunes cuts s after n characters (an invalid byte counts as one) and
// adds an ellipsis when it cut.
func capRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for at := range s {
		if i == n {
			return s[:at] + "…"
		}
		i++
	}
	return s
}
