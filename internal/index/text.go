package index

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/search"
)

// Shortest last query word matched as a prefix: of perfume and brand words
// in the perfume search (one letter would match a tenth of the catalogue),
// and in the short brand and accord lists.
const (
	perfumeMinPrefix = 2
	listMinPrefix    = 1
)

// prepareBrands resolves each brand group's search words and aliases,
// by the group ids add gave (buildLists renumbers them later).
func (b *builder) prepareBrands() {
	ix := b.ix
	b.brandNames = b.brands.names()
	b.brandOld = slices.Clone(ix.brandOf)
	aliasesOf := map[string][]string{} // folded brand → aliases
	for alias, brands := range ix.lx.Aliases {
		for _, br := range brands {
			aliasesOf[br] = append(aliasesOf[br], alias)
		}
	}
	b.brandWords = make([][]string, len(b.brandNames))
	b.brandExtra = make([][]string, len(b.brandNames))
	for g, name := range b.brandNames {
		f := search.Fold(name)
		b.brandWords[g] = strings.Fields(f)
		b.brandExtra[g] = aliasTerms(aliasesOf[f], ix.lx)
	}
}

// buildText builds the perfume text index, whose documents are the
// perfumes most rated first (ix.order: its document pos is perfume
// ix.order[pos]), and the product lines. It runs after buildOrder and
// beside buildLists, so it reads brands by their first ids.
//
// Numbered so, a search ranks its matches by popularity without reading
// it (a cache miss a match at 200,000 perfumes: see posKey), reads the
// attributes of the most rated, the likeliest to make a page, side by
// side, and meets them first, so that the page's floor rises early.
func (b *builder) buildText() {
	ix := b.ix
	editions := editionTerms(ix.lx)
	tb := search.NewTextIndexBuilder(ix.lx, perfumeMinPrefix, len(ix.entries))
	// Documents of one brand and concentration share their brand words,
	// aliases and edition words: resolve them once.
	type key struct {
		brand uint32
		conc  string
	}
	shared := map[key]*search.Shared{}
	if len(b.tab.words) <= 1<<16 {
		ix.attrOf = make([]uint32, len(ix.entries))
	}
	for pos, doc := range ix.order {
		e := &ix.entries[doc]
		if ix.attrOf != nil {
			ix.attrOf[pos] = e.conc | e.gender<<16
		}
		k := key{b.brandOld[doc], strings.ToLower(e.Concentration())}
		sh, ok := shared[k]
		if !ok {
			extra := append(slices.Clip(b.brandExtra[k.brand]), editions[k.conc]...)
			sh = tb.Shared(b.brandWords[k.brand], extra)
			shared[k] = sh
		}
		tb.AddShared(strings.Fields(b.nameFold[doc]), sh)
	}
	ix.text = tb.Build()
	b.buildLines()
}

// buildListText builds the text indexes of the brand and accord lists,
// whose documents are the lists' entries in order.
func (b *builder) buildListText() {
	ix := b.ix
	old := make([]uint32, len(b.brandPos)) // list position → first id
	for g, pos := range b.brandPos {
		old[pos] = uint32(g)
	}
	bt := search.NewTextIndexBuilder(ix.lx, listMinPrefix, len(ix.brands))
	for _, g := range old {
		bt.Add(b.brandWords[g], nil, b.brandExtra[g])
	}
	ix.brandText = bt.Build()
	at := search.NewTextIndexBuilder(ix.lx, listMinPrefix, len(ix.accords))
	for _, a := range ix.accords {
		at.Add(strings.Fields(search.Fold(a.Name)), nil, nil)
	}
	ix.accordText = at.Build()
}

// aliasTerms turns aliases into search terms: each alias joined into one
// word ("paco rabanne" → "pacorabanne", matched by adjacent query words
// joined), plus the words of multi-word aliases that can stand alone.
func aliasTerms(aliases []string, lx *search.Lexicon) []string {
	var out []string
	for _, a := range aliases {
		words := strings.Fields(a)
		out = append(out, strings.Join(words, ""))
		for _, w := range words {
			if len(words) > 1 && len(w) >= 3 && !lx.Weak[w] {
				out = append(out, w)
			}
		}
	}
	return out
}

// editionTerms maps a lower-cased concentration to the one-word edition
// names of it ("eau de parfum" → edp), so "sauvage edp" finds a perfume
// whose name spells the concentration out.
func editionTerms(lx *search.Lexicon) map[string][]string {
	out := map[string][]string{}
	for phrase, conc := range lx.Editions {
		if !strings.Contains(phrase, " ") {
			k := strings.ToLower(conc)
			out[k] = append(out[k], phrase)
		}
	}
	return out
}

// buildLines gives each perfume its product line: brand plus the first word
// of its name that is neither weak, an edition word nor a brand word
// ("Sauvage Elixir" → Dior/sauvage, "Burberry Brit" → Burberry/brit).
func (b *builder) buildLines() {
	ix := b.ix
	ids := map[string]uint32{}
	ix.line = make([]uint64, len(ix.entries))
	for doc := range ix.entries {
		g := b.brandOld[doc]
		var word uint32
		for _, w := range strings.Fields(b.nameFold[doc]) {
			if ix.lx.Weak[w] || ix.lx.Editions[w] != "" || slices.Contains(b.brandWords[g], w) {
				continue
			}
			id, ok := ids[w]
			if !ok {
				id = uint32(len(ids) + 1)
				ids[w] = id
			}
			word = id
			break
		}
		ix.line[doc] = uint64(g)<<32 | uint64(word)
	}
}

// searchPerfumes runs a parsed query over the perfumes keep (nil: all)
// keeps, asked of places of the popularity order (the text index's
// documents), and returns one page. Results rank by,
// in order (see matchKey): content words matched; asked edition and gender
// met; match quality of the content words (exact > other spelling > prefix
// > typo, summed over words); the name matched exactly, then its
// distinctive words matched (search.Match.NameCover); weak words matched;
// popularity. Weak words come after the name so that a stray "perfume" or
// "for her" lifts a result among equals but never above the perfume the
// other words name.
func (ix *Index) searchPerfumes(pq search.Query, keep func(uint32) bool, page, limit int) Page {
	k, from, p, l := paging(page, limit)
	top := newTopK(k)
	content, weak := pq.Mask(search.Content), pq.Mask(search.Weak, search.Edition)
	// First every match's key as far as the match alone tells (content
	// words, quality, weak words: no attribute, name or popularity), a
	// lower bound of its whole key; the k-th best of those is a floor: a match whose key could not reach it even with
	// the rest at its best cannot enter the page, and is passed over before
	// its document is read. A query naming two words passes over the many
	// documents that have one of them (thousands at 200,000 perfumes).
	lower, total := newTopK(k), 0
	ask := ix.askAttrs(pq)
	attrs := ask.most()
	ix.text.SearchTwice(pq, keep, func(m *search.Match) {
		total++
		lower.push(matchKey(m, content, weak), m.Doc)
	}, func(m *search.Match) {
		key := matchKey(m, content, weak)
		if !lower.admits(key + attrs<<56 | nameBits | popBits) {
			return
		}
		// The name's cover ranks below quality and above popularity: a
		// match that could not enter the page even with its name matched
		// exactly is counted without walking its name. Matches come most
		// rated first, so once the page is full, one enters only by a
		// better key than the floor's apart from popularity.
		key += ask.key(ix, m.Doc) | ix.posKey(m.Doc)
		if !top.admits(key | nameBits) {
			return
		}
		full, exact := m.NameCover()
		if full {
			key |= fullNameBit
		}
		if exact {
			key |= exactNameBit
		}
		top.push(key, m.Doc)
	})
	out := Page{Entries: []*Entry{}, Total: total, Page: p, Limit: l, Pages: pages(total, l)}
	ranked := top.sorted()
	if from < len(ranked) {
		for _, r := range ranked[from:] {
			out.Entries = append(out.Entries, &ix.entries[ix.order[r.doc]])
		}
	}
	return out
}

// A match's ranking as one integer, largest best: matchKey, plus attrKey,
// plus the name's cover and the popularity (nameBits and popBits):
//
//	bits 58–62 content words matched   bits 56–57 edition/gender met
//	bits 46–55 content quality         bit  45    exact name
//	bit  44    full name               bits 39–43 weak words matched
//	bits 0–38  popularity (higher = more rated)
//
// matchKey is the part the match alone tells (content words, quality,
// weak words).
func matchKey(m *search.Match, content, weak uint32) uint64 {
	return uint64(bits.OnesCount32(m.Mask&content))<<58 |
		uint64(min(m.Quality, 1023))<<46 |
		uint64(bits.OnesCount32(m.Mask&weak))<<39
}

// attrKey is the edition and gender asked and met, in bits 56–57.
func (ix *Index) attrKey(pq search.Query, doc uint32) uint64 {
	if pq.Edition == "" && pq.Gender == "" {
		return 0
	}
	e := &ix.entries[doc]
	var attr uint64
	if pq.Edition != "" && strings.EqualFold(e.Concentration(), pq.Edition) {
		attr++
	}
	if pq.Gender != "" && string(e.Gender()) == pq.Gender {
		attr++
	}
	return attr << 56
}

// askedAttrs is a query's edition and gender as word ids of the entries'
// tables: attrKey's comparisons made once a query, the matches' words
// then compared by number (Index.attrOf).
type askedAttrs struct {
	pq             search.Query
	edition        bool
	concs          [4]uint32 // the words the edition equals, ignoring case
	nConc          int
	gender         uint32 // the word the gender equals, noWord when none
	genderAsked    bool
	readTheEntries bool // no attrOf, or more such words than concs holds
}

// noWord is a word id no table has.
const noWord = ^uint32(0)

// attrWord is a word of the entries' tables (a concentration or a gender)
// with its id.
type attrWord struct {
	id   uint32
	name string
}

func (ix *Index) askAttrs(pq search.Query) askedAttrs {
	a := askedAttrs{pq: pq, edition: pq.Edition != "", genderAsked: pq.Gender != "", gender: noWord, readTheEntries: ix.attrOf == nil}
	if a.edition {
		for _, w := range ix.concWords {
			if strings.EqualFold(w.name, pq.Edition) {
				if a.nConc == len(a.concs) {
					a.readTheEntries = true
					break
				}
				a.concs[a.nConc] = w.id
				a.nConc++
			}
		}
	}
	if a.genderAsked {
		for _, w := range ix.genderWords {
			if w.name == pq.Gender {
				a.gender = w.id
			}
		}
	}
	return a
}

// most is the most the edition and gender asked can add to a key, in
// units of bit 56.
func (a *askedAttrs) most() uint64 {
	var n uint64
	if a.edition {
		n++
	}
	if a.genderAsked {
		n++
	}
	return n
}

// key is attrKey(pq, ix.order[pos]): of the perfume at place pos of the
// popularity order, the text index's document pos.
func (a *askedAttrs) key(ix *Index, pos uint32) uint64 {
	if !a.edition && !a.genderAsked {
		return 0
	}
	if a.readTheEntries {
		return ix.attrKey(a.pq, ix.order[pos])
	}
	v := ix.attrOf[pos]
	var attr uint64
	if a.edition && slices.Contains(a.concs[:a.nConc], v&0xffff) {
		attr++
	}
	if a.genderAsked && v>>16 == a.gender {
		attr++
	}
	return attr << 56
}

// The name's cover and the popularity in a match's key (see matchKey).
const (
	exactNameBit = uint64(1) << 45
	fullNameBit  = uint64(1) << 44
	nameBits     = exactNameBit | fullNameBit
	popBits      = uint64(1)<<39 - 1
)

// popKey is a document's popularity as a key part: larger for more rated.
func (ix *Index) popKey(doc uint32) uint64 { return ix.posKey(ix.popPos[doc]) }

// posKey is popKey of the perfume at place pos of the popularity order.
func (ix *Index) posKey(pos uint32) uint64 { return uint64(len(ix.order)) - uint64(pos) }
