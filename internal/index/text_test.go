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
		key := matchKey(m, content, weak) + ix.attrKey(pq, m.Doc) | ix.popKey(m.Doc)
		full, exact := m.NameCover()
		if full {
			key |= fullNameBit
		}
		if exact {
			key |= exactNameBit
		}
		all = append(all, keyed{key, m.Doc})
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
