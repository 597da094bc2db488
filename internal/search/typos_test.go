package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

type typoHit struct {
	id   uint32
	dist int
}

// typosByScan is the reference for TextIndex.typos: every typo-searchable
// word of the vocabulary measured against w, shorter words first, then in
// vocabulary order. words are the single words of the names and brands
// indexed (joins and extras are not searched with typos).
func typosByScan(t *TextIndex, words map[string]bool, w string, k int) []typoHit {
	type lenHit struct {
		typoHit
		n int
	}
	var out []lenHit
	n := utf8.RuneCountInString(w)
	for id, term := range t.terms {
		tn := utf8.RuneCountInString(term)
		if !words[term] || !typoSearchable(term) || tn < n-k || tn > n+k {
			continue
		}
		if d := Distance(w, term, k); d >= 1 && d <= k {
			out = append(out, lenHit{typoHit{uint32(id), d}, tn})
		}
	}
	slices.SortFunc(out, func(a, b lenHit) int { return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.id, b.id)) })
	hits := make([]typoHit, len(out))
	for i, f := range out {
		hits[i] = f.typoHit
	}
	return hits
}

func typosByIndex(t *TextIndex, w string, k int) []typoHit {
	var hits []typoHit
	t.typos(w, k, func(id uint32, d int) { hits = append(hits, typoHit{id, d}) })
	return hits
}

// TestTyposMatchScan checks the deletion index against a scan of the whole
// vocabulary: the same words, distances and order for query words that are
// vocabulary words with one or two edits of every kind, and for random
// words, Unicode letters included.
func TestTyposMatchScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	letters := []rune("aeioulnrstmdkbgpéøß")
	letter := func() rune { return letters[r.IntN(len(letters))] }
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(letter())
		}
		return b.String()
	}
	var docs []string
	var vocab []string
	for range 600 {
		var name []string
		for range 1 + r.IntN(3) {
			w := word(3 + r.IntN(10))
			name = append(name, w)
			vocab = append(vocab, w)
		}
		docs = append(docs, strings.Join(name, " ")+" | "+word(5+r.IntN(4)))
	}
	// Words near each other, so that lookups find several words.
	for i := range 300 {
		w := []rune(vocab[i])
		w[r.IntN(len(w))] = letter()
		docs = append(docs, string(w)+" | x")
	}
	ix := smallText(t, docs...)
	words := map[string]bool{}
	for _, d := range docs {
		for _, w := range strings.Fields(strings.Replace(d, "|", " ", 1)) {
			words[Fold(w)] = true
		}
	}
	edit := func(w string) string {
		rs := []rune(w)
		i := r.IntN(len(rs))
		switch r.IntN(4) {
		case 0: // substitute
			rs[i] = letter()
		case 1: // insert
			rs = slices.Insert(rs, i, letter())
		case 2: // delete
			rs = slices.Delete(rs, i, i+1)
		default: // swap adjacent letters
			if i+1 < len(rs) {
				rs[i], rs[i+1] = rs[i+1], rs[i]
			}
		}
		return string(rs)
	}
	checked, found := 0, 0
	for i := range 3000 {
		var q string
		switch i % 3 {
		case 0:
			q = edit(vocab[r.IntN(len(vocab))])
		case 1:
			q = edit(edit(vocab[r.IntN(len(vocab))]))
		default:
			q = word(4 + r.IntN(12))
		}
		k := TyposFor(q)
		if k == 0 {
			continue
		}
		want, got := typosByScan(ix, words, q, k), typosByIndex(ix, q, k)
		if !slices.Equal(got, want) {
			t.Fatalf("typos(%q, %d) = %v, the scan finds %v", q, k, got, want)
		}
		checked++
		found += len(want)
	}
	if checked < 1500 || found < 300 {
		t.Fatalf("only %d lookups checked, %d words found: the test lost its reach", checked, found)
	}
}

// TestTyposLongWord: a query word longer than any filed word finds none,
// cheaply (its two-letter deletions are not even hashed).
func TestTyposLongWord(t *testing.T) {
	ix := smallText(t, strings.Repeat("a", maxTypoLen)+" | x")
	if got := typosByIndex(ix, strings.Repeat("a", maxTypoLen+1), 2); len(got) != 1 {
		t.Fatalf("a word one letter longer than the longest: %v, want it found", got)
	}
	if got := typosByIndex(ix, strings.Repeat("a", 400), 2); len(got) != 0 {
		t.Fatalf("a 400-letter word found %v", got)
	}
}

// TestPrefixesMatchScan checks the prefix range's two binary searches
// against comparing every word, Unicode and prefixes of no word included.
func TestPrefixesMatchScan(t *testing.T) {
	ix := smallText(t, "ab abc abd abzz ac b | x", "aé aéb aêc é éa | y", "zz zzz | z")
	for _, p := range []string{"a", "ab", "abc", "abz", "aé", "a\xc3", "é", "z", "zz", "zzzz", "b", "q", "\xff"} {
		var got, want []string
		ix.minPrefix = 1
		from, to := ix.prefixRange(p)
		for id := from; id < to; id++ {
			got = append(got, ix.terms[id])
		}
		for _, w := range ix.terms {
			if w != p && strings.HasPrefix(w, p) {
				want = append(want, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("prefixRange(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestNotTypedElsewhereMatchesWordByWord checks the runs of a prefix's
// words that lookup keeps against the rule applied word by word (the way
// lookup applied it before it took a prefix's words as one range): a word
// the i-th query word begins is dropped when it begins with another query
// word that the i-th begins too.
func TestNotTypedElsewhereMatchesWordByWord(t *testing.T) {
	ix := smallText(t,
		"go good goodgirl gold golden goa | x",
		"girl gir gi g gogo goo goodie | y",
		"b ba bab babe be bea bear beast | z",
	)
	ix.minPrefix = 1
	queries := []string{
		"good girl go", "go go", "go good goo", "gi girl", "b be bea", "be b",
		"bear be", "g go goo good", "x go", "goo go", "ba bab b",
	}
	rng := rand.New(rand.NewPCG(3, 5))
	words := []string{"g", "go", "goo", "good", "gol", "gi", "gir", "b", "ba", "be", "bea", "beast", "x", "q"}
	for range 300 {
		n := 2 + rng.IntN(3)
		var q []string
		for range n {
			q = append(q, words[rng.IntN(len(words))])
		}
		queries = append(queries, strings.Join(q, " "))
	}
	for _, qs := range queries {
		var toks []Token
		for _, w := range strings.Fields(qs) {
			toks = append(toks, Token{Text: w})
		}
		q := Query{Tokens: toks}
		for i, tok := range q.Tokens {
			from, to := ix.prefixRange(tok.Text)
			var got, want []string
			ix.notTypedElsewhere(q, i, from, to, func(a, b uint32) {
				if a >= b {
					t.Errorf("%q word %d: empty run [%d, %d)", qs, i, a, b)
				}
				for id := a; id < b; id++ {
					got = append(got, ix.terms[id])
				}
			})
			for id := from; id < to; id++ {
				if w := ix.terms[id]; !typedElsewhereWord(q, i, w) {
					want = append(want, w)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q word %d (%q): kept %q, want %q", qs, i, tok.Text, got, want)
			}
		}
	}
}

// typedElsewhereWord is the rule word by word: w, a word the i-th query
// word begins, begins with another query word that the i-th begins too.
func typedElsewhereWord(q Query, i int, w string) bool {
	p := q.Tokens[i].Text
	for j, tok := range q.Tokens {
		if j != i && strings.HasPrefix(tok.Text, p) && strings.HasPrefix(w, tok.Text) {
			return true
		}
	}
	return false
}
