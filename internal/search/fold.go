// Package search holds the pure text functions of the service: folding
// text for matching, slugs, query parsing and the text index. Nothing
// here does I/O. What ranks perfumes against one another (similarity,
// dupes, match's fit) is package index/ranking's.
package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// special folds letters that do not decompose into a base letter and a mark.
var special = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'þ': "th", 'ı': "i",
}

// Fold lowercases s, removes accents, turns "&" into " and " and every other
// run of punctuation or space into one space, as the contract's slug rule
// does. The result has no leading or trailing space:
// Fold("Hermès Terre d'Hermès") == "hermes terre d hermes".
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true // suppress leading spaces
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ") // norm leaves text after a bad byte undecomposed
	}
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r) // before the table, so 'Ð' folds as 'ð' does
		if rep, ok := special[r]; ok {
			if rep != "" {
				b.WriteString(rep)
				space = false
			}
			continue
		}
		switch {
		case r == '&':
			if !space {
				b.WriteByte(' ')
			}
			b.WriteString("and ")
			space = true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			space = false
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Slugify makes the slug form of s: folded, ASCII letters and digits only,
// words joined by "-". Letters outside ASCII that do not fold (CJK, Cyrillic)
// are dropped, so a name made only of them gives "".
func Slugify(s string) string {
	var b strings.Builder
	dash := true
	for _, r := range Fold(s) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}
