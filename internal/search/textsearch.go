package search

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Qualities of a word match, best first. A result's quality is the sum over
// the query words it matched, so exact > other spelling > prefix > typo. An
// other spelling ("aqua" for "acqua") is a whole word the user meant, so it
// counts more than the last word merely beginning another ("gio" of
// "giordani").
const (
	QualityExact   = 8
	QualityVariant = 6
	QualityPrefix  = 5
	QualityTypo1   = 3
	QualityTypo2   = 2
)

// Match is one document found by Search.
type Match struct {
	Doc uint32
	// Mask has bit i set when query token i is matched.
	Mask uint32
	// Quality sums the best match quality of each matched content token
	// (weak words lift a result by their count, not their quality).
	Quality int
	// Read by NameCover, valid while visit runs.
	t     *TextIndex
	sc    *searchScratch
	cover uint8 // see docScratch
}

// NameCover reports whether the document's name was matched in full and
// exactly. It may be called only while Search's visit runs, and costs a
// walk over the name's words: a caller ranking by it can first rank by
// what Match holds and skip it for documents that cannot make its page.
//
// full is set when every distinctive word of the name (not weak, not of
// the brand, not an edition word) was matched by some query word:
// "sauvage" names Sauvage and Sauvage Eau de Parfum fully, not Sauvage Eau
// Forte. exact is set when every word of the name was matched and the name
// has a word besides the brand's: "sauvage" is Sauvage exactly, not Eau
// Sauvage; "dolce gabbana" is not Dolce by Dolce&Gabbana exactly.
func (m *Match) NameCover() (full, exact bool) { return m.t.nameCover(m.Doc, m.cover, m.sc) }

// hit is the vocabulary terms [term, end) matched by a run of query
// tokens: one term, or the terms a prefix begins (adjacent in the
// vocabulary, so their postings are too). whole is set unless the terms
// were matched as a prefix: only whole words and joins cover name words
// for a full-name match (a prefix of a join says nothing of the join's
// second word).
type hit struct {
	term    uint32
	end     uint32
	mask    uint32
	quality uint8
	content bool
	whole   bool
}

// searchScratch is the per-search working memory, pooled per index.
// isFound, a bit per document, tells the documents found so far: a
// posting of a document not found, the most of a weak word's postings,
// costs a read of it (a few kilobytes, in the cache) rather than of the
// document's record (a cache miss at 200,000 perfumes); a record is
// written when its document is found, so no reset of them is needed.
type searchScratch struct {
	isFound []uint64
	docs    []docScratch
	found   []foundDoc // the documents found, ascending
	matched []uint64   // bitset over terms
	setBits []uint32   // terms set in matched, to clear them afterwards
	hits    []hit
}

// docScratch is what a search knows of one document: the fields a
// posting updates side by side, in four bytes, so that the records of
// 200,000 perfumes (800 KB) stay in a core's L2 cache, where the
// postings' reads of them, in no order, find them.
type docScratch struct {
	mask    uint16 // query tokens matched (MaxQueryTokens fit)
	quality uint8  // at most QualityExact a content token (MaxQueryTokens fit)
	cover   uint8  // the covers of the whole terms matched (see TextIndex.need)
}

// A query's tokens fit docScratch's mask, and its quality (at most
// QualityExact a token) its quality.
const (
	_ = uint16(1 << (MaxQueryTokens - 1))
	_ = uint8(QualityExact * MaxQueryTokens)
)

// foundDoc is a document found and, once the walk is over, what the
// search knows of it, copied from docs so that each pass over the matches
// reads them in order.
type foundDoc struct {
	doc uint32
	docScratch
}

// Search calls visit for every document that matches at least one content
// token of q (see Query) and passes keep (nil keeps all). Documents come in
// ascending order (a caller that numbers them most popular first ranks by
// popularity without reading anything); ranking is the caller's.
func (t *TextIndex) Search(q Query, keep func(doc uint32) bool, visit func(m *Match)) {
	t.SearchTwice(q, keep, nil, visit)
}

// SearchTwice is Search calling scan (when not nil) for every match before
// it calls visit for every match: a caller ranking a page learns from the
// whole set, the k-th best of what the matches alone tell, before it reads
// anything else of any document (NameCover, or its own data).
func (t *TextIndex) SearchTwice(q Query, keep func(doc uint32) bool, scan, visit func(m *Match)) {
	if len(q.Tokens) == 0 {
		return
	}
	sc := t.getScratch()
	defer t.putScratch(sc)
	sc.hits = t.lookup(q, sc.hits[:0])
	content := uint16(q.Mask(Content))
	for _, h := range sc.hits {
		var cover uint8 // what the term covers of a name it is in
		if h.whole {
			sc.setMatched(h.term)
			cover = t.covers[h.term]
		}
		for _, p := range t.post[t.postOff[h.term]:t.postOff[h.end]] {
			doc := p &^ namePosting
			word, bit := doc/64, uint64(1)<<(doc%64)
			if sc.isFound[word]&bit == 0 {
				if !h.content || (keep != nil && !keep(doc)) {
					continue
				}
				sc.isFound[word] |= bit
				sc.docs[doc] = docScratch{}
			}
			d := &sc.docs[doc]
			if p&namePosting != 0 {
				d.cover = addCover(d.cover, cover)
			}
			// No branch on the record read: the next postings' reads
			// need not wait for it.
			fresh := uint16(h.mask) &^ d.mask
			d.mask |= fresh
			d.quality += h.quality * uint8(bits.OnesCount16(fresh&content))
		}
	}
	// The documents found, ascending, read off the bitmap (a few
	// thousand words at 200,000 perfumes, read in order: less than
	// sorting what the walk found).
	for w, x := range sc.isFound {
		for ; x != 0; x &= x - 1 {
			doc := uint32(w*64 + bits.TrailingZeros64(x))
			sc.found = append(sc.found, foundDoc{doc: doc, docScratch: sc.docs[doc]})
		}
	}
	m := Match{t: t, sc: sc}
	for _, fn := range [2]func(*Match){scan, visit} {
		if fn == nil {
			continue
		}
		for _, f := range sc.found {
			m.Doc, m.Mask, m.Quality, m.cover = f.doc, uint32(f.mask), int(f.quality), f.cover
			fn(&m)
		}
	}
}

// lookup finds the terms each token, and each run of two or three adjacent
// tokens joined, matches. Hits that can start a result (they cover a content
// token) come first, then best quality first: a document's token is then
// scored by its best match, and weak tokens only lift documents found already.
//
// The words a prefix begins are one hit, a range of the vocabulary: a
// short last word begins thousands at 200,000 perfumes ("be"), and a hit
// each made lookup's sort the most of such a search.
func (t *TextIndex) lookup(q Query, hits []hit) []hit {
	content := q.Mask(Content)
	add := func(term, end uint32, mask uint32, quality uint8) {
		if term < end {
			hits = append(hits, hit{term: term, end: end, mask: mask, quality: quality, content: mask&content != 0, whole: quality != QualityPrefix})
		}
	}
	for i, tok := range q.Tokens {
		t.lookupToken(tok, func(term, end uint32, quality uint8) {
			if quality == QualityPrefix {
				t.notTypedElsewhere(q, i, term, end, func(term, end uint32) { add(term, end, 1<<i, quality) })
				return
			}
			add(term, end, 1<<i, quality)
		})
	}
	for i := range q.Tokens {
		joined := q.Tokens[i].Text
		for j := i + 1; j < len(q.Tokens) && j < i+3; j++ {
			joined += q.Tokens[j].Text
			mask := uint32(1)<<(j+1) - uint32(1)<<i
			if id, ok := t.find(joined); ok {
				add(id, id+1, mask, QualityExact)
			}
			if q.Tokens[j].Prefix {
				from, to := t.prefixRange(joined)
				add(from, to, mask, QualityPrefix)
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.content != b.content {
			if a.content {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.quality, a.quality)
	})
	return hits
}

// notTypedElsewhere reports, in order, the runs of the terms [from, to)
// that the i-th query word begins and that do not begin with another
// query word the i-th begins too: such a word is that other word again,
// alone or joined with the next. In "good girl go", "go" is a third word
// being typed, not "good" (or "goodgirl") again. The words another query
// word begins, itself included, are a range of the vocabulary as well.
func (t *TextIndex) notTypedElsewhere(q Query, i int, from, to uint32, fn func(from, to uint32)) {
	p := q.Tokens[i].Text
	var gapBuf [4][2]uint32
	gaps := gapBuf[:0]
	for j, tok := range q.Tokens {
		if j != i && strings.HasPrefix(tok.Text, p) {
			gf, gt := t.beginning(tok.Text)
			gaps = append(gaps, [2]uint32{uint32(gf), uint32(gt)})
		}
	}
	slices.SortFunc(gaps, func(a, b [2]uint32) int { return cmp.Compare(a[0], b[0]) })
	for _, g := range gaps {
		if g[0] > from {
			fn(from, min(g[0], to))
		}
		from = max(from, g[1])
	}
	if from < to {
		fn(from, to)
	}
}

// lookupToken reports the terms one token matches with their quality:
// single terms, and the range of those it begins as a prefix.
func (t *TextIndex) lookupToken(tok Token, add func(term, end uint32, quality uint8)) {
	if id, ok := t.find(tok.Text); ok {
		add(id, id+1, QualityExact)
	}
	for _, same := range tok.Same {
		if id, ok := t.find(same); ok {
			add(id, id+1, QualityExact)
		}
	}
	for _, alt := range tok.Alts {
		if id, ok := t.find(alt); ok {
			add(id, id+1, QualityVariant)
		}
	}
	if tok.Prefix {
		from, to := t.prefixRange(tok.Text)
		add(from, to, QualityPrefix)
	}
	if tok.Typos > 0 {
		t.typos(tok.Text, tok.Typos, func(id uint32, d int) {
			if d == 1 {
				add(id, id+1, QualityTypo1)
			} else {
				add(id, id+1, QualityTypo2)
			}
		})
	}
}

// find returns the id of a term, by binary search.
func (t *TextIndex) find(w string) (uint32, bool) {
	i := t.lowerBound(w)
	if i < len(t.terms) && t.terms[i] == w {
		return uint32(i), true
	}
	return 0, false
}

// lowerBound is sort.SearchStrings(t.terms, w): the place of the first
// term not less than w. Keys keep the strings' order (a ≤ b gives
// termKey(a) ≤ termKey(b)), so the terms whose key is below w's are below
// w and those whose key is above are above: only the run of terms sharing
// w's key, usually none or a few, is compared as strings.
func (t *TextIndex) lowerBound(w string) int {
	k := termKey(w)
	lo, _ := slices.BinarySearch(t.keys, k) // the first key ≥ k
	end := lo
	for end < len(t.keys) && t.keys[end] == k {
		if end-lo == 8 { // a long run: its end by binary search too
			end += sort.Search(len(t.keys)-end, func(j int) bool { return t.keys[end+j] != k })
			break
		}
		end++
	}
	return lo + sort.SearchStrings(t.terms[lo:end], w)
}

// termKey is s's first eight bytes, big-endian, padded with zero bytes.
func termKey(s string) uint64 {
	var k uint64
	n := min(len(s), 8)
	for i := range n {
		k |= uint64(s[i]) << (56 - 8*i)
	}
	return k
}

// prefixRange returns the terms [from, to) that begin with p, p itself
// excluded, when p is long enough to be worth it (an empty range when it
// is not, or when none do).
func (t *TextIndex) prefixRange(p string) (from, to uint32) {
	if utf8.RuneCountInString(p) < t.minPrefix {
		return 0, 0
	}
	i, end := t.beginning(p)
	if i < end && t.terms[i] == p {
		i++
	}
	return uint32(i), uint32(end)
}

// beginning returns the terms [i, end) that begin with p, p included.
func (t *TextIndex) beginning(p string) (i, end int) {
	i = t.lowerBound(p)
	// The words beginning with p end where the words from p's successor
	// (p with its last byte raised, when it can be) begin: found by a
	// second binary search rather than by comparing every word of the
	// range with p (a short prefix has thousands at 200,000 perfumes).
	end = len(t.terms)
	if last := len(p) - 1; last >= 0 && p[last] < 0xff {
		end = t.lowerBound(p[:last] + string([]byte{p[last] + 1}))
	} else {
		for end = i; end < len(t.terms) && strings.HasPrefix(t.terms[end], p); end++ {
		}
	}
	return i, end
}

// nameCover reports whether the distinctive words of doc's name (full),
// and all of its words (exact), were matched, each on its own or joined
// with the word beside it.
func (t *TextIndex) nameCover(doc uint32, cover uint8, sc *searchScratch) (full, exact bool) {
	// No term matched in the name (the brand's words did, or another
	// field's): no name needs fewer than one word, so its needs are not
	// read (a cache miss; the most of the matches a ranking asks about at
	// 200,000 perfumes).
	if cover == 0 || !t.coverable(doc, cover) {
		return false, false
	}
	return t.nameCoverWalk(doc, sc)
}

// coverable reports whether terms covering cover words of doc's name (the
// sum a search keeps, see TextIndex.need) could match it in full or
// exactly: not when both need more words. need is at most 255, so a
// saturated sum never rules a name out.
func (t *TextIndex) coverable(doc uint32, cover uint8) bool {
	return t.need[2*doc] <= cover || t.need[2*doc+1] <= cover
}

// nameCoverWalk is nameCover without the bound: the walk over the name.
func (t *TextIndex) nameCoverWalk(doc uint32, sc *searchScratch) (full, exact bool) {
	words := t.nameWords[t.nameOff[doc]:t.nameOff[doc+1]]
	joins := t.nameJoins[t.nameOff[doc]:t.nameOff[doc+1]]
	counted, own := 0, 0
	full, exact = true, true
	for i, w := range words {
		covered := sc.isMatched(w&^wordFlags) || sc.isMatched(joins[i]) || (i > 0 && sc.isMatched(joins[i-1]))
		exact = exact && covered
		if w&brandWord == 0 {
			own++
		}
		if w&looseWord == 0 {
			counted++
			full = full && covered
		}
	}
	return full && counted > 0, exact && own > 0
}

// addCover adds a term's cover to a document's, saturating at 255.
func addCover(a, b uint8) uint8 {
	if s := a + b; s >= a {
		return s
	}
	return 255
}

func (sc *searchScratch) isMatched(id uint32) bool {
	return id != noJoin && sc.matched[id/64]&(1<<(id%64)) != 0
}

func (sc *searchScratch) setMatched(id uint32) {
	if sc.matched[id/64]&(1<<(id%64)) == 0 {
		sc.matched[id/64] |= 1 << (id % 64)
		sc.setBits = append(sc.setBits, id)
	}
}

func (t *TextIndex) getScratch() *searchScratch {
	sc, _ := t.scratch.Get().(*searchScratch)
	if sc == nil {
		n := t.Docs()
		sc = &searchScratch{isFound: make([]uint64, (n+63)/64), docs: make([]docScratch, n), matched: make([]uint64, (len(t.terms)+63)/64)}
	}
	return sc
}

func (t *TextIndex) putScratch(sc *searchScratch) {
	for _, id := range sc.setBits {
		sc.matched[id/64] &^= 1 << (id % 64)
	}
	if len(sc.found) < len(sc.isFound) {
		for _, f := range sc.found {
			sc.isFound[f.doc/64] = 0
		}
	} else {
		clear(sc.isFound)
	}
	sc.setBits, sc.found = sc.setBits[:0], sc.found[:0]
	if cap(sc.hits) > 1<<14 { // do not keep a huge slice from a rare query
		sc.hits = nil
	}
	t.scratch.Put(sc)
}
