package search

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxTypoLen is the longest word (in runes) typo lookups consider.
const maxTypoLen = 40

// noJoin marks the last word of a name, which has no join with a next one.
const noJoin = ^uint32(0)

// Flags of a word in nameWords, above its term id (vocabularies are kept
// below 2^30 terms). looseWord marks a word a full-name match need not
// cover: weak, an edition word, a year ("(2018)" tells reissues apart) or a
// word of the brand or its aliases. brandWord marks the brand's words: a
// name made of them only ("Dolce" by Dolce&Gabbana) is never an exact match
// for a query naming the brand, which then ranks the brand by popularity.
const (
	looseWord = uint32(1) << 31
	brandWord = uint32(1) << 30
	wordFlags = looseWord | brandWord
)

// TextIndex is an immutable inverted index over folded words, built for
// the matching the contract asks of q: exact words, the last query word as
// a prefix (binary search in the sorted vocabulary), typos (a deletion index,
// see typos.go, before a bounded edit distance), other spellings,
// and words run together or split (adjacent words of names and brands are
// also indexed joined, adjacent query words are also looked up joined). It
// is safe for concurrent searches.
type TextIndex struct {
	terms []string // sorted vocabulary; a term's id is its position
	// keys[i] is terms[i]'s first eight bytes as a number (termKey): the
	// binary searches of the vocabulary compare these, one array read a
	// step, and read the strings only where keys tie.
	keys    []uint64
	postOff []uint32 // postings of term t: post[postOff[t]:postOff[t+1]]
	post    []uint32 // document numbers, ascending within a term
	// Each document's name words in order (nameWords, loose ones flagged)
	// and the join of each word with the next (nameJoins, noJoin for the
	// last), both at nameOff[doc]:nameOff[doc+1].
	nameOff   []uint32
	nameWords []uint32
	nameJoins []uint32
	typo      typoIndex
	minPrefix int
	scratch   sync.Pool // *searchScratch
}

// TextIndexBuilder collects documents for a TextIndex. Documents are
// numbered 0, 1, 2... in the order they are added.
type TextIndexBuilder struct {
	lx        *Lexicon
	minPrefix int
	ids       map[string]uint32
	terms     []string
	typoable  []bool
	pairTerm  []uint32 // (pairTerm[i], pairDoc[i]): term occurs in document
	pairDoc   []uint32
	nameOff   []uint32
	nameWords []uint32
	nameJoins []uint32
	doc       []uint32 // terms of the document being added
}

// NewTextIndexBuilder starts an index. lx tells which name words are weak;
// minPrefix is the shortest last query word that is also matched as a
// prefix (short prefixes of a large vocabulary match too much to help).
func NewTextIndexBuilder(lx *Lexicon, minPrefix, docsHint int) *TextIndexBuilder {
	return &TextIndexBuilder{
		lx: lx, minPrefix: max(1, minPrefix), ids: make(map[string]uint32, 2*docsHint),
		pairTerm: make([]uint32, 0, docsHint*8), pairDoc: make([]uint32, 0, docsHint*8),
		nameOff: make([]uint32, 1, docsHint+1), nameWords: make([]uint32, 0, docsHint*4),
		nameJoins: make([]uint32, 0, docsHint*4),
	}
}

// Shared is the part of documents that many share (a brand's words and
// aliases), resolved once so adding each document does not look its words
// up again.
type Shared struct {
	words []string // the brand and extra words: loose brand words in names
	ids   []uint32
}

// Shared resolves other and extra words for AddShared; see Add.
func (b *TextIndexBuilder) Shared(other, extra []string) *Shared {
	sh := &Shared{words: append(slices.Clip(other), extra...)}
	strong := make([]string, 0, len(other))
	for i, w := range other {
		sh.ids = append(sh.ids, b.term(w, true))
		if i > 0 {
			sh.ids = append(sh.ids, b.term(other[i-1]+w, false))
		}
		if !b.lx.Weak[w] {
			strong = append(strong, w)
		}
	}
	// The whole run joined, and without its weak words ("dolce and
	// gabbana" → "dolcegabbana").
	if len(other) > 2 {
		sh.ids = append(sh.ids, b.term(strings.Join(other, ""), false))
	}
	if len(strong) > 1 && len(strong) < len(other) {
		sh.ids = append(sh.ids, b.term(strings.Join(strong, ""), false))
	}
	for _, w := range extra {
		sh.ids = append(sh.ids, b.term(w, false))
	}
	return sh
}

// Add indexes one document and returns its number. name and other are
// folded words in order: name words make up the document's name; other
// words (the brand) match the same way but are not part of the name; so do
// adjacent words of either joined ("light blue" → "lightblue"). extra
// words (aliases, edition abbreviations) match exactly only. A name word
// that is also an other or extra word counts as the brand's ("Paco" by
// Rabanne, whose alias is "paco rabanne"). See Match for what counts as a
// full-name and an exact-name match.
func (b *TextIndexBuilder) Add(name, other, extra []string) uint32 {
	return b.AddShared(name, b.Shared(other, extra))
}

// AddShared is Add with the other and extra words resolved by Shared.
func (b *TextIndexBuilder) AddShared(name []string, sh *Shared) uint32 {
	docNo := uint32(len(b.nameOff) - 1)
	b.doc = b.doc[:0]
	for i, w := range name {
		id := b.term(w, true)
		b.add(id)
		switch {
		case slices.Contains(sh.words, w):
			id |= looseWord | brandWord
		case b.lx.Weak[w] || b.lx.Editions[w] != "" || isYear(w):
			id |= looseWord
		}
		b.nameWords = append(b.nameWords, id)
		if i > 0 {
			j := b.term(name[i-1]+w, false)
			b.add(j)
			b.nameJoins = append(b.nameJoins, j)
		}
	}
	if len(name) > 0 {
		b.nameJoins = append(b.nameJoins, noJoin)
	}
	b.nameOff = append(b.nameOff, uint32(len(b.nameWords)))
	for _, id := range sh.ids {
		b.add(id)
	}
	for _, id := range b.doc {
		b.pairTerm = append(b.pairTerm, id)
		b.pairDoc = append(b.pairDoc, docNo)
	}
	return docNo
}

// term interns a word. typoable words (single words of names and brands)
// are searched with typos; joins and extras are not.
func (b *TextIndexBuilder) term(w string, typoable bool) uint32 {
	id, ok := b.ids[w]
	if !ok {
		if len(b.terms) >= int(brandWord) {
			panic("search: more than 2^30 distinct words") // the flags of nameWords need the top bits
		}
		id = uint32(len(b.terms))
		b.ids[w] = id
		b.terms = append(b.terms, w)
		b.typoable = append(b.typoable, false)
	}
	if typoable {
		b.typoable[id] = true
	}
	return id
}

func (b *TextIndexBuilder) add(id uint32) {
	if !slices.Contains(b.doc, id) {
		b.doc = append(b.doc, id)
	}
}

// Build freezes the index. The builder must not be used afterwards.
func (b *TextIndexBuilder) Build() *TextIndex {
	type termID struct {
		s  string
		id uint32
	}
	order := make([]termID, len(b.terms)) // sorted: order[newID].id = oldID
	for i, w := range b.terms {
		order[i] = termID{w, uint32(i)}
	}
	b.ids, b.terms = nil, nil // free the map while the rest is built
	slices.SortFunc(order, func(x, y termID) int { return strings.Compare(x.s, y.s) })
	remap := make([]uint32, len(order)) // remap[oldID] = newID
	t := &TextIndex{minPrefix: b.minPrefix, nameOff: b.nameOff, nameWords: b.nameWords, nameJoins: b.nameJoins}
	t.terms = make([]string, len(order))
	var typo typoIndexBuilder
	for newID, o := range order {
		remap[o.id] = uint32(newID)
		t.terms[newID] = o.s
		if b.typoable[o.id] && typoSearchable(o.s) {
			typo.add(uint32(newID), o.s)
		}
	}
	t.typo = typo.build(t.terms)
	t.keys = make([]uint64, len(t.terms))
	for i, w := range t.terms {
		t.keys[i] = termKey(w)
	}
	for i, id := range t.nameWords {
		t.nameWords[i] = remap[id&^wordFlags] | id&wordFlags
	}
	for i, id := range t.nameJoins {
		if id != noJoin {
			t.nameJoins[i] = remap[id]
		}
	}
	t.buildPostings(b.pairTerm, b.pairDoc, remap)
	return t
}

// typoSearchable reports whether typo lookups consider a word: letters
// only, at most maxTypoLen of them (the deletion index files only those
// long enough for a query word's typos to reach, see typoMinLen1).
func typoSearchable(w string) bool {
	return utf8.RuneCountInString(w) <= maxTypoLen && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// buildPostings lays the (term, document) pairs out term by term (a
// counting sort, so documents stay ascending within each term).
func (t *TextIndex) buildPostings(pairTerm, pairDoc, remap []uint32) {
	t.postOff = make([]uint32, len(t.terms)+1)
	for _, old := range pairTerm {
		t.postOff[remap[old]+1]++
	}
	for i := 1; i < len(t.postOff); i++ {
		t.postOff[i] += t.postOff[i-1]
	}
	t.post = make([]uint32, len(pairTerm))
	next := slices.Clone(t.postOff[:len(t.terms)])
	for i, old := range pairTerm {
		id := remap[old]
		t.post[next[id]] = pairDoc[i]
		next[id]++
	}
}

// Docs is the number of documents indexed.
func (t *TextIndex) Docs() int { return len(t.nameOff) - 1 }

// isYear reports whether a name word is a year of the last two centuries,
// which names add to tell a reissue from the original ("Acqua di Gio
// (1995)"), not to name the perfume.
func isYear(w string) bool {
	if len(w) != 4 || (w[:2] != "19" && w[:2] != "20") {
		return false
	}
	return w[2] >= '0' && w[2] <= '9' && w[3] >= '0' && w[3] <= '9'
}
