package index

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// buildLists makes the brand, perfumer, note and accord lists.
func (b *builder) buildLists() {
	ix := b.ix
	ix.brands, b.brandPos = makeGroups(b.brandNames, b.brands.keys,
		func(doc uint32, yield func(uint32)) { yield(ix.brandOf[doc]) }, ix.order)
	for doc, g := range ix.brandOf {
		ix.brandOf[doc] = b.brandPos[g]
	}
	ix.brandSlugs = slugIndex(ix.brands)
	ix.brandsKnown = knownOrder(ix.brands, ix.entries)
	ix.perfumers, _ = makeGroups(b.pers.names(), b.pers.keys, func(doc uint32, yield func(uint32)) {
		for _, g := range b.persOf[doc] {
			yield(g)
		}
	}, ix.order)
	ix.persSlugs = slugIndex(ix.perfumers)
	b.persOf = nil

	ix.noteName = b.notes.names()
	ix.noteIDs = b.notes.groupOf
	ix.notes = countList(ix.noteName, len(b.docNotes), func(i int) uint32 { return b.docNotes[i].id() }, nil)
	ix.accordName = b.accords.names()
	ix.accordIDs = b.accords.groupOf
	ix.accords = countList(ix.accordName, len(b.docAccs), func(i int) uint32 { return b.docAccs[i].id() }, b.color)
}

// knownOrder lists the groups of gs by the rating counts of their
// perfumes summed, most first, then in their own order (perfumes, name).
func knownOrder(gs []group, entries []Entry) []uint32 {
	sums := make([]int, len(gs))
	order := make([]uint32, len(gs))
	for i, g := range gs {
		for _, doc := range g.docs {
			sums[i] += entries[doc].RatingCount
		}
		order[i] = uint32(i)
	}
	slices.SortStableFunc(order, func(a, b uint32) int { return cmp.Compare(sums[b], sums[a]) })
	return order
}

// countList counts, per id, the per-document references (each document
// refers to an id at most once) and lists the names by count, then name,
// with colours when color is set.
func countList(names []string, refs int, id func(i int) uint32, color func(string) string) []Count {
	out := make([]Count, len(names))
	for i, n := range names {
		out[i].Name = n
	}
	for i := range refs {
		out[id(i)].Count++
	}
	folded := make(map[string]string, len(out))
	for _, c := range out {
		folded[c.Name] = search.Fold(c.Name)
	}
	slices.SortStableFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(folded[a.Name], folded[b.Name]), cmp.Compare(a.Name, b.Name))
	})
	if color != nil {
		for i := range out {
			out[i].Color = color(out[i].Name)
		}
	}
	return out
}

func slugIndex(gs []group) map[string]uint32 {
	m := make(map[string]uint32, len(gs))
	for i, g := range gs {
		if _, dup := m[g.Slug]; !dup {
			m[g.Slug] = uint32(i)
		}
	}
	return m
}

// Perfumes lists or searches perfumes. Without Q: most rated first, then
// name, then slug. With Q: by relevance (see matchKey), then rating count.
// A Q without any word (only punctuation) lists as if absent.
func (ix *Index) Perfumes(q ListQuery) Page {
	var docs []uint32
	var keep func(uint32) bool
	if q.Brand != "" {
		g, ok := ix.brandSlugs[q.Brand]
		if !ok {
			g, ok = ix.brandSlugs[search.Slugify(q.Brand)]
		}
		if !ok {
			_, _, p, l := paging(q.Page, q.Limit)
			return Page{Entries: []*Entry{}, Page: p, Limit: l}
		}
		docs = ix.brands[g].docs
		// The text index's documents are places of the popularity order.
		keep = func(pos uint32) bool { return ix.brandOf[ix.order[pos]] == g }
	}
	pq := search.ParseQuery(q.Q, ix.lx)
	if len(pq.Tokens) > 0 {
		return ix.searchPerfumes(pq, keep, q.Page, q.Limit)
	}
	if docs == nil {
		docs = ix.order
	}
	return ix.pageOf(docs, q.Page, q.Limit)
}

// pageOf cuts one page out of an ordered document list.
func (ix *Index) pageOf(docs []uint32, page, limit int) Page {
	_, from, p, l := paging(page, limit)
	out := Page{Entries: []*Entry{}, Total: len(docs), Page: p, Limit: l, Pages: pages(len(docs), l)}
	if from < len(docs) {
		for _, doc := range docs[from:min(from+l, len(docs))] {
			out.Entries = append(out.Entries, &ix.entries[doc])
		}
	}
	return out
}

// Brands lists brands by perfume count, then name. q, when not empty,
// keeps the brands whose name or alias matches every word of it (accents,
// case, typos, the last word as a prefix, "ysl" for Yves Saint Laurent).
func (ix *Index) Brands(q string) []Count {
	return filterCounts(ix.brandText, ix.lx, q, len(ix.brands), func(i int) Count { return ix.brands[i].Count })
}

// BrandsByRatings lists brands by how well known they are: the rating
// counts of all their perfumes summed, most first (then by perfumes and
// name); each Count still counts the brand's perfumes. limit 0 gives all.
func (ix *Index) BrandsByRatings(limit int) []Count {
	if limit <= 0 || limit > len(ix.brandsKnown) {
		limit = len(ix.brandsKnown)
	}
	out := make([]Count, limit)
	for i, g := range ix.brandsKnown[:limit] {
		out[i] = ix.brands[g].Count
	}
	return out
}

// Notes lists notes by the number of perfumes having them, then name;
// limit 0 gives all. total is the number of notes.
func (ix *Index) Notes(limit int) (items []Count, total int) {
	if limit <= 0 || limit > len(ix.notes) {
		limit = len(ix.notes)
	}
	return ix.notes[:limit:limit], len(ix.notes)
}

// Perfumers lists perfumers by perfume count, then name.
func (ix *Index) Perfumers() []Count {
	out := make([]Count, len(ix.perfumers))
	for i, g := range ix.perfumers {
		out[i] = g.Count
	}
	return out
}

// Perfumer returns a perfumer and one page of their perfumes, most rated
// first; the error wraps catalog.ErrNotFound for an unknown slug.
func (ix *Index) Perfumer(slug string, page, limit int) (Count, Page, error) {
	g, ok := ix.persSlugs[slug]
	if !ok {
		return Count{}, Page{}, fmt.Errorf("perfumer %q: %w", slug, catalog.ErrNotFound)
	}
	return ix.perfumers[g].Count, ix.pageOf(ix.perfumers[g].docs, page, limit), nil
}

// Accords lists accords by perfume count, then name, at most limit of
// them (0: all); search filters them like Brands' q. total counts every
// accord that passed the filter.
func (ix *Index) Accords(search string, limit int) (items []Count, total int) {
	all := filterCounts(ix.accordText, ix.lx, search, len(ix.accords), func(i int) Count { return ix.accords[i] })
	if limit <= 0 || limit > len(all) {
		limit = len(all)
	}
	return all[:limit:limit], len(all)
}

// AccordNames lists the canonical accord names, most common first.
func (ix *Index) AccordNames() []string { return names(ix.accords) }

// NoteNames lists the canonical note names, most common first.
func (ix *Index) NoteNames() []string { return names(ix.notes) }

func names(cs []Count) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// filterCounts returns the counts (documents 0..n-1 of t, already in list
// order) whose text matches every content word of q; all when q has none.
func filterCounts(t *search.TextIndex, lx *search.Lexicon, q string, n int, count func(i int) Count) []Count {
	pq := search.ParseQuery(q, lx)
	if len(pq.Tokens) == 0 {
		out := make([]Count, n)
		for i := range out {
			out[i] = count(i)
		}
		return out
	}
	want := pq.Mask(search.Content)
	hit := make([]bool, n)
	t.Search(pq, nil, func(m *search.Match) {
		if m.Mask&want == want {
			hit[m.Doc] = true
		}
	})
	out := []Count{}
	for i, ok := range hit {
		if ok {
			out = append(out, count(i))
		}
	}
	return out
}

// CanonicalAccord returns the catalogue's spelling of an accord named in
// any case, accents or punctuation; false when the catalogue lacks it.
func (ix *Index) CanonicalAccord(name string) (string, bool) {
	id, ok := ix.accordIDs[search.Fold(name)]
	if !ok {
		return "", false
	}
	return ix.accordName[id], true
}

// CanonicalNote is CanonicalAccord for a note.
func (ix *Index) CanonicalNote(name string) (string, bool) {
	id, ok := ix.noteIDs[search.Fold(name)]
	if !ok {
		return "", false
	}
	return ix.noteName[id], true
}
