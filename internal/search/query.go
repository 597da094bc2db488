package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryTokens bounds the words of one query: the rest is ignored, so a
// long query cannot make a search slow. Masks of matched words fit a uint32.
const MaxQueryTokens = 16

// TokenKind says how a query word counts in ranking.
type TokenKind uint8

// The kinds of query words.
const (
	// Content words name the perfume: a result missing one ranks below every
	// result that has them all.
	Content TokenKind = iota
	// Weak words describe ("for", "men", "perfume"): a result having one
	// ranks higher, a result missing one is not held back.
	Weak
	// Edition words name a concentration ("edp", "parfum"): weak words that
	// also set Query.Edition.
	Edition
)

// Token is one folded query word with what it may match.
type Token struct {
	Text string
	// Same are words meaning the same ("1" for "one"), matched as the word
	// itself; Alts are other spellings ("blue" for "bleu"), matched a
	// little below it.
	Same []string
	Alts []string
	Kind TokenKind
	// Prefix is set on the last word, which also matches the words it
	// begins: the user may still be typing it.
	Prefix bool
	// Typos is how many edits the word tolerates: 1 from 5 letters, 2 from
	// 9; words with digits and weak words tolerate none.
	Typos int
}

// Query is a parsed search query.
type Query struct {
	Tokens []Token
	// Edition is the concentration the query asks for, "" when none.
	Edition string
	// Gender is the gender the query asks for ("masculine"...), "" when none.
	Gender string
}

// ParseQuery folds q and classifies its words with lx. An empty or
// punctuation-only q gives a Query without tokens.
func ParseQuery(q string, lx *Lexicon) Query {
	words := strings.Fields(Fold(q))
	if len(words) > MaxQueryTokens {
		words = words[:MaxQueryTokens]
	}
	var out Query
	out.Tokens = make([]Token, len(words))
	for i, w := range words {
		out.Tokens[i] = Token{Text: w, Kind: Content}
	}
	out.markEditions(lx)
	content := 0
	for i := range out.Tokens {
		t := &out.Tokens[i]
		if g, ok := lx.Genders[t.Text]; ok {
			out.Gender = g
		}
		if t.Kind == Content && lx.Weak[t.Text] {
			t.Kind = Weak
		}
		if t.Kind == Content {
			content++
		}
	}
	for i := range out.Tokens {
		t := &out.Tokens[i]
		if content == 0 {
			t.Kind = Content // only weak words: search them as they are
		}
		t.Same = alternatives(t.Text, lx.Equivalents)
		t.Alts = lx.Variants[t.Text]
		t.Prefix = i == len(out.Tokens)-1
		if t.Kind == Content {
			t.Typos = TyposFor(t.Text)
		}
	}
	return out
}

// markEditions finds edition phrases, longest first, and marks their words.
func (q *Query) markEditions(lx *Lexicon) {
	for i := 0; i < len(q.Tokens); {
		n := 0
		for l := min(3, len(q.Tokens)-i); l >= 1 && n == 0; l-- {
			phrase := q.Tokens[i].Text
			for _, t := range q.Tokens[i+1 : i+l] {
				phrase += " " + t.Text
			}
			if c, ok := lx.Editions[phrase]; ok {
				q.Edition, n = c, l
			}
		}
		if n == 0 {
			i++
			continue
		}
		for j := i; j < i+n; j++ {
			q.Tokens[j].Kind = Edition
		}
		i += n
	}
}

// alternatives lists the equivalents of a folded word: its group, and for
// a word like "no5" the equivalents of its letter part ("n5", "nr5"...).
func alternatives(w string, groups map[string][]string) []string {
	same := groups[w]
	cut := strings.IndexFunc(w, unicode.IsDigit)
	if cut <= 0 || strings.IndexFunc(w[cut:], func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
		return same
	}
	var out []string
	for _, v := range groups[w[:cut]] {
		out = append(out, v+w[cut:])
	}
	return append(out, same...)
}

// TyposFor is how many edits a word tolerates: none under 5 letters or when
// it has a digit, one from 5 letters, two from 9.
func TyposFor(w string) int {
	if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
		return 0
	}
	switch n := utf8.RuneCountInString(w); {
	case n >= 9:
		return 2
	case n >= 5:
		return 1
	}
	return 0
}

// Mask returns the bits of the tokens of the given kinds.
func (q Query) Mask(kinds ...TokenKind) uint32 {
	var m uint32
	for i, t := range q.Tokens {
		for _, k := range kinds {
			if t.Kind == k {
				m |= 1 << i
			}
		}
	}
	return m
}
