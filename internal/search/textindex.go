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

// namePosting flags a posting whose term is in the document's name, as a
// word or a join of two, rather than only in its brand or aliases: only
// those cover name words (see TextIndex.need).
const namePosting = uint32(1) << 31

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
	// Document numbers, ascending within a term, each with namePosting set
	// when the term is a word of the document's name or a join of two.
	post []uint32
	// Each document's name words in order (nameWords, loose ones flagged)
	// and the join of each word with the next (nameJoins, noJoin for the
	// last), both at nameOff[doc]:nameOff[doc+1].
	nameOff   []uint32
	nameWords []uint32
	nameJoins []uint32
	// need[2*doc] and need[2*doc+1] are how many distinct words of doc's
	// name a full and an exact match must cover (its distinctive words, all
	// of them; 255 for more, and when the name has no distinctive word or
	// none but the brand's, so can never be matched so), and covers[t] the most distinct name words
	// term t covers in any one name (1 as a word; 2 as the join of two
	// words; more where it is both or joins several pairs). A search adds up
	// the covers of the terms it matched in each document's name (postings
	// flagged namePosting): a name with more words to cover than that sum
	// cannot be matched in full, so nameCover need not walk it.
	need      []uint8
	covers    []uint8
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
	docName   []bool   // whether doc[i] is a word or join of its name
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
	if docNo >= namePosting {
		panic("search: more than 2^31 documents") // postings keep a flag in the top bit
	}
	b.doc, b.docName = b.doc[:0], b.docName[:0]
	for i, w := range name {
		id := b.term(w, true)
		b.add(id, true)
		switch {
		case slices.Contains(sh.words, w):
			id |= looseWord | brandWord
		case b.lx.Weak[w] || b.lx.Editions[w] != "" || isYear(w):
			id |= looseWord
		}
		b.nameWords = append(b.nameWords, id)
		if i > 0 {
			j := b.term(name[i-1]+w, false)
			b.add(j, true)
			b.nameJoins = append(b.nameJoins, j)
		}
	}
	if len(name) > 0 {
		b.nameJoins = append(b.nameJoins, noJoin)
	}
	b.nameOff = append(b.nameOff, uint32(len(b.nameWords)))
	for _, id := range sh.ids {
		b.add(id, false)
	}
	for i, id := range b.doc {
		b.pairTerm = append(b.pairTerm, id)
		if b.docName[i] {
			b.pairDoc = append(b.pairDoc, docNo|namePosting)
		} else {
			b.pairDoc = append(b.pairDoc, docNo)
		}
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

// add adds a term to the document being added; name is set for a word of
// its name or a join of two (see namePosting).
func (b *TextIndexBuilder) add(id uint32, name bool) {
	if i := slices.Index(b.doc, id); i >= 0 {
		b.docName[i] = b.docName[i] || name
	} else {
		b.doc = append(b.doc, id)
		b.docName = append(b.docName, name)
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
	t.buildCovers()
	return t
}

// buildCovers fills need and covers (see TextIndex).
func (t *TextIndex) buildCovers() {
	docs := t.Docs()
	t.need = make([]uint8, 2*docs)
	t.covers = make([]uint8, len(t.terms))
	var distinct, counted []uint32
	type cover struct {
		term  uint32
		words []uint32
	}
	var cs []cover
	coverOf := func(term uint32) *cover {
		for i := range cs {
			if cs[i].term == term {
				return &cs[i]
			}
		}
		cs = slices.Grow(cs, 1)[:len(cs)+1] // the words slice of an earlier name reused
		c := &cs[len(cs)-1]
		c.term, c.words = term, c.words[:0]
		return c
	}
	addWord := func(c *cover, w uint32) {
		if !slices.Contains(c.words, w) {
			c.words = append(c.words, w)
		}
	}
	for doc := range docs {
		words := t.nameWords[t.nameOff[doc]:t.nameOff[doc+1]]
		joins := t.nameJoins[t.nameOff[doc]:t.nameOff[doc+1]]
		distinct, counted, cs = distinct[:0], counted[:0], cs[:0]
		own := false
		for i, w := range words {
			id := w &^ wordFlags
			own = own || w&brandWord == 0
			if !slices.Contains(distinct, id) {
				distinct = append(distinct, id)
			}
			if w&looseWord == 0 && !slices.Contains(counted, id) {
				counted = append(counted, id)
			}
			addWord(coverOf(id), id)
			if j := joins[i]; j != noJoin {
				c := coverOf(j)
				addWord(c, id)
				addWord(c, words[i+1]&^wordFlags)
			}
		}
		// A name with no distinctive word is never matched in full, one
		// of the brand's words only never exactly: 255, more than any
		// search covers but a saturated one (which nameCover then walks).
		t.need[2*doc] = uint8(min(len(counted), 255))
		if len(counted) == 0 {
			t.need[2*doc] = 255
		}
		t.need[2*doc+1] = uint8(min(len(distinct), 255))
		if !own {
			t.need[2*doc+1] = 255
		}
		for _, c := range cs {
			t.covers[c.term] = max(t.covers[c.term], uint8(min(len(c.words), 255)))
		}
	}
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
