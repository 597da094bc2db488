package index

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// browseBenchQueries are the filtered lists BenchmarkBrowse200k times,
// each also with every facet counted: a narrow set and a broad one, by
// the default order and by the other sorts, and the scalar filters.
var browseBenchQueries = []struct {
	name string
	q    BrowseQuery
}{
	{"narrow", BrowseQuery{Genders: []catalog.Gender{catalog.Feminine}, Season: "summer", Accords: []string{"citrus"}, Notes: []string{"Bergamot"}}},
	{"broad-rating", BrowseQuery{Genders: []catalog.Gender{catalog.Masculine, catalog.Unisex}, Sort: SortRating}},
	{"exclude-name", BrowseQuery{Accords: []string{"woody"}, NotAccords: []string{"sweet"}, NotNotes: []string{"Vanilla"}, Sort: SortName}},
	{"year-rating", BrowseQuery{Years: YearRange{From: 2010, To: 2020}, MinRating: 4, Sort: SortNewest}},
	{"rare-deep", BrowseQuery{Notes: []string{"Saffron"}, Time: "night", Page: 20}},
	{"text-filter", BrowseQuery{Q: "rose", Genders: []catalog.Gender{catalog.Feminine}}},
}

// BenchmarkBrowse200k times Browse on a 200,000-perfume catalogue: each
// filtered list without facets, with every facet counted for the first
// time (-facets: the memo emptied before each call), and with every facet
// asked again (-facets-again: counted once, then the memo's, as for every
// other page and sort of the set; beside the list, the memo's cost), and
// a lookup of 100 slugs beside a page of 100.
func BenchmarkBrowse200k(b *testing.B) {
	ix := scaledIndex(b, 200_000)
	for _, c := range browseBenchQueries {
		q := c.q
		q.Page, q.Limit = max(q.Page, 1), 20
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Browse(q); err != nil {
					b.Fatal(err)
				}
			}
		})
		q.Facets = FacetNames
		b.Run(c.name+"-facets", func(b *testing.B) {
			for b.Loop() {
				ix.browse.memo.reset()
				if _, err := ix.Browse(q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"-facets-again", func(b *testing.B) {
			ix.browse.memo.reset()
			if _, err := ix.Browse(q); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := ix.Browse(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	var slugs []string
	for i := 0; len(slugs) < MaxIDs; i += 1999 {
		slugs = append(slugs, ix.entries[i].Slug())
	}
	b.Run("page100", func(b *testing.B) {
		for b.Loop() {
			ix.Browse(BrowseQuery{Page: 50, Limit: 100})
		}
	})
	b.Run("ids100", func(b *testing.B) {
		for b.Loop() {
			ix.Browse(BrowseQuery{IDs: slugs})
		}
	})
}
