package server_test

import (
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/servetest"
)

// TestOpenAPIBrowse validates the answers of /api/perfumes with the browse
// parameters (filters, sorts, facets, ids) and their 400s against the
// document, whose strict copy refuses members it does not list.
func TestOpenAPIBrowse(t *testing.T) {
	v := newChecker(t)
	h := servetest.NewServer(t, nil)
	ids101 := strings.TrimSuffix(strings.Repeat("a,", 101), ",")
	for _, c := range []oasCase{
		{"GET", "/api/perfumes?gender=feminine,unisex&season=summer&time=day&limit=3", 200, true},
		{"GET", "/api/perfumes?accords=woody,-sweet&notes=Vetiver&sort=rating&limit=3", 200, true},
		{"GET", "/api/perfumes?year=2010-2020&minRating=4&sort=newest&limit=2", 200, true},
		{"GET", "/api/perfumes?year=-1950&sort=oldest&limit=2", 200, true},
		{"GET", "/api/perfumes?year=2020-&sort=name&limit=2", 200, true},
		{"GET", "/api/perfumes?q=rose&gender=feminine&sort=popular&limit=2", 200, true},
		{"GET", "/api/perfumes?brand=chanel&facets=gender,season,time,accords,notes,year&limit=1", 200, true},
		{"GET", "/api/perfumes?accords=oud&notes=Saffron&facets=accords&page=500", 200, true},
		{"GET", "/api/perfumes?ids=dior-sauvage,no-such-perfume,creed-aventus", 200, true},
		{"GET", "/api/perfumes?ids=no-such-perfume", 200, true},

		{"GET", "/api/perfumes?gender=femenine", 400, true},
		{"GET", "/api/perfumes?season=autumn&time=noon", 400, false},
		{"GET", "/api/perfumes?sort=ratng", 400, false},
		{"GET", "/api/perfumes?year=20x5", 400, false},
		{"GET", "/api/perfumes?year=2020-2010", 400, true},
		{"GET", "/api/perfumes?minRating=9", 400, false},
		{"GET", "/api/perfumes?accords=wodoy&notes=-vanillla", 400, true},
		{"GET", "/api/perfumes?facets=colour", 400, true},
		{"GET", "/api/perfumes?ids=" + ids101, 400, true},
		{"GET", "/api/perfumes?ids=dior-sauvage&q=rose", 400, true},
	} {
		v.check(t, h, c)
	}
}
