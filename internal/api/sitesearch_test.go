package api

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
)

// TestSiteSearchMatchesReference: the site search's encoder gives the bytes
// of encoding/json of its shape in package view, for results with every
// kind of name (accents, quotes, ampersands) and for none.
func TestSiteSearchMatchesReference(t *testing.T) {
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range testRenders(t) {
		for _, q := range []string{"sauvage", "hermes", "d&g", "l'eau", "rose", "xyzzyq", ""} {
			var es []*index.Entry
			if q != "" {
				es = ix.Perfumes(index.ListQuery{Q: q, Page: 1, Limit: 20}).Entries
			}
			sameBytes(t, r.name+" site search "+q, refEncode(t, r.ref.SiteSearch(es)),
				fastEncode(r.fast, func(en *encoder, b []byte) []byte { return en.appendSiteSearch(b, es) }))
		}
	}
}
