package index

import (
	"cmp"
	"slices"
	"testing"

	"github.com/fragrance-data/fragrance/internal/search"
)

// fullRanking is searchPerfumes without its shortcuts: every match's whole
// key made, all of them sorted, the page cut out.
func (ix *Index) fullRanking(pq search.Query, page, limit int) (docs []uint32, total int) {
	content, weak := pq.Mask(search.Content), pq.Mask(search.Weak, search.Edition)
	var all []keyed
	ix.text.Search(pq, nil, func(m *search.Match) {
		doc := ix.order[m.Doc] // the text index's documents are places of order
		key := matchKey(m, content, weak) + ix.attrKey(pq, doc) | ix.popKey(doc)
		full, exact := m.NameCover()
		if full {
			key |= fullNameBit
		}
		if exact {
			key |= exactNameBit
		}
		all = append(all, keyed{key, doc})
	})
	slices.SortFunc(all, func(a, b keyed) int { return cmp.Compare(b.key, a.key) })
	for i := (page - 1) * limit; i < min(page*limit, len(all)); i++ {
		docs = append(docs, all[i].doc)
	}
	return docs, len(all)
}

// TestSearchSkipsOnlyWhatCannotRank: a search's page, with the matches it
// passes over unread (their key could not reach the page's floor) and the
// names it does not walk, is the page of every match ranked in full, for
// names, brands and names, typos, prefixes, weak words, editions and
// genders, and pages past the first.
func TestSearchSkipsOnlyWhatCannotRank(t *testing.T) {
	ix := realIndex(t)
	queries := []string{"de", "eau", "parfum", "rose", "rose noir", "sauvage edp", "sauvage eau de toilette",
		"chanel", "pour homme", "for women", "oud for men", "bleu de chanel parfum", "acqua di gio",
		"baccarat rouge 540 extrait", "vanilla", "black opium", "tom ford", "la vie est belle intense"}
	for i := 0; i < len(ix.order); i += 211 {
		e := &ix.entries[ix.order[i]]
		queries = append(queries, e.Name(), e.Brand()+" "+e.Name(), typo(e.Name(), i))
		if r := []rune(e.Name()); len(r) > 4 {
			queries = append(queries, string(r[:3+i%(len(r)-3)]))
		}
	}
	checked := 0
	for _, q := range queries {
		pq := search.ParseQuery(q, ix.lx)
		for _, pl := range [][2]int{{1, 20}, {2, 20}, {1, 5}, {7, 3}} {
			got := ix.searchPerfumes(pq, nil, pl[0], pl[1])
			want, total := ix.fullRanking(pq, pl[0], pl[1])
			var docs []uint32
			for _, e := range got.Entries {
				docs = append(docs, ix.bySlug[e.Slug()])
			}
			if got.Total != total || !slices.Equal(docs, want) {
				t.Fatalf("%q page %d limit %d: total %d, docs %v; ranked in full: total %d, docs %v",
					q, pl[0], pl[1], got.Total, docs, total, want)
			}
			checked += len(docs)
		}
	}
	if checked < 10_000 {
		t.Fatalf("only %d results compared", checked)
	}
}

// TestAskedAttrsMatchAttrKey: the edition and gender compared by word id
// (attrOf, by place of the popularity order) give every document the key
// attrKey gives it by reading its entry, for the real catalogue's
// editions and genders, for spellings of an edition differing in case
// beyond what askedAttrs holds (it reads the entries then), and for an
// index without attrOf.
func TestAskedAttrsMatchAttrKey(t *testing.T) {
	ps := smallCatalogue()
	for i, c := range []string{"EDP", "edp", "Edp", "eDp", "edP", "EdP"} {
		ps[i%len(ps)].Concentration = c
	}
	for _, ix := range []*Index{realIndex(t), Build(ps, Options{AccordColor: colors})} {
		editions := []string{"", "edp", "Eau de Parfum", "eau de toilette", "Parfum", "nothing"}
		for _, w := range ix.concWords {
			editions = append(editions, w.name)
		}
		for _, noAttrOf := range []bool{false, true} {
			for _, ed := range editions {
				for _, g := range []string{"", "feminine", "masculine", "unisex", "none"} {
					pq := search.Query{Edition: ed, Gender: g}
					ask := ix.askAttrs(pq)
					if noAttrOf {
						ask.readTheEntries = true
					}
					for pos, doc := range ix.order {
						if got, want := ask.key(ix, uint32(pos)), ix.attrKey(pq, doc); got != want {
							t.Fatalf("edition %q gender %q doc %d: key %x, attrKey %x", ed, g, doc, got, want)
						}
					}
				}
			}
		}
	}
	if ix := Build(ps, Options{AccordColor: colors}); !ix.askAttrs(search.Query{Edition: "edp"}).readTheEntries {
		t.Fatal("six spellings of one edition fit askedAttrs' four")
	}
}
