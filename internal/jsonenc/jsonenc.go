// Package jsonenc holds the JSON primitives of the hand-written encoders
// (the API's answers, the access log's JSON lines). Every answer of the hot
// endpoints is appended to one byte slice without reflection, and the
// output is byte for byte what encoding/json.Encoder gives with
// SetEscapeHTML(false); the tests here and the API's reference test hold
// them to it.
package jsonenc

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// PlainASCII reports whether c is held as it is in a JSON string:
// printable ASCII but the quote and the backslash.
func PlainASCII(c byte) bool { return plainASCII[c] }

const hexDigits = "0123456789abcdef"

// plainASCII marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string, escaping as encoding/json does
// with HTML escaping off: quote, backslash and control characters; invalid
// UTF-8 becomes U+FFFD; U+2028 and U+2029 are escaped for JSONP's sake.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	return append(AppendStringBody(b, s), '"')
}

// AppendStringBody appends the escaped characters of s without quotes, so
// that several valid UTF-8 strings can make one JSON string without being
// joined first.
func AppendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// The common case: eight plain bytes at a time; otherwise the
		// plain bytes before the first that is not, at once, and that one
		// below.
		if i+8 <= len(s) {
			m := notPlain8(s[i : i+8])
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		c := s[i]
		if plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// Word masks of notPlain8: a byte in every lane, the lanes' high bits.
const (
	lanes = 0x0101010101010101
	highs = 0x8080808080808080
)

// notPlain8 tests the eight bytes of s at once, as one word (lane k is
// s[k]), and returns the word with the high bit of each lane set whose byte
// is not plain (plainASCII), or above it: zero when all are plain, and the
// lowest lane set is the first byte that is not. A lane's byte is not
// plain when its own high bit is set (not ASCII), it is below 0x20 (a
// control character), or it is a quote or a backslash. Each test is the
// classic "has a byte less than n": a lane that borrows may set the high
// bit of the lanes above it, never of those below.
func notPlain8(s string) uint64 {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	quote, backslash := w^(lanes*'"'), w^(lanes*'\\')
	return (w | (w-lanes*0x20)&^w | (quote-lanes)&^quote | (backslash-lanes)&^backslash) & highs
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// representation, in exponent form only below 1e-6 or from 1e21 on. The
// API's numbers are finite; a NaN or infinity (which encoding/json refuses)
// is written as null rather than as invalid JSON.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	if abs >= 1 && abs < 1<<53 && f == math.Trunc(f) {
		// A whole number (an accord's strength, a count) is its digits:
		// what the shortest representation gives, at a fraction of the
		// cost (a third of a list page's encoding went to strengths).
		return strconv.AppendInt(b, int64(f), 10)
	}
	if abs >= 0.01 && abs < 1e9 {
		// A number of at most two decimals (a rating, a score, a share) is
		// the double nearest its hundredths, c/100; no other decimal of as
		// few digits lies as near (the doubles here are far closer together
		// than 0.01), so its shortest representation is c/100 without
		// trailing zeros, written here at a fraction of the shortest search.
		if c := math.Round(f * 100); c/100 == f {
			return appendHundredths(b, int64(c))
		}
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendHundredths appends c/100 as a decimal, without trailing zeros
// (not a whole number: c is not a multiple of 100).
func appendHundredths(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	frac := c % 100
	b = append(b, '.', byte('0'+frac/10))
	if frac%10 != 0 {
		b = append(b, byte('0'+frac%10))
	}
	return b
}

// AppendInt appends an integer.
func AppendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// AppendOptFloat appends f, or null when it is 0 (unknown).
func AppendOptFloat(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, "null"...)
	}
	return AppendFloat(b, f)
}

// AppendOptInt appends n, or null when it is 0 (unknown).
func AppendOptInt(b []byte, n int) []byte {
	if n == 0 {
		return append(b, "null"...)
	}
	return AppendInt(b, n)
}

// AppendOptString appends s, or null when it is empty (unknown).
func AppendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return AppendString(b, s)
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendStrings appends a JSON array of strings; nil is written as [],
// as every string list of the API is.
func AppendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}
