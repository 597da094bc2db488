package main

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The sizes of the match profiles: every pair of the commonest accords,
// alone or with one of the commonest notes, alone or with a gender, a season
// or both.
const (
	matchAccords = 20
	matchNotes   = 10
	// maxQueryLen is the longest q the API accepts, in characters.
	maxQueryLen = 200
)

var (
	genders = []string{"masculine", "feminine", "unisex"}
	seasons = []string{"winter", "spring", "summer", "fall"}
)

// perfume is what the mixes need of a catalogue record.
type perfume struct {
	slug, name, brand string
	lower             string // name in lower case, to rank ties
	ratings           int
}

// rankByRatings orders perfumes most rated first, ties by name and slug:
// the API's default list order (which folds accents in names; the tail
// of equal counts may differ a little, where Zipf weights barely differ).
func rankByRatings(ps []perfume) {
	slices.SortStableFunc(ps, func(a, b perfume) int {
		return cmp.Or(cmp.Compare(b.ratings, a.ratings),
			strings.Compare(a.lower, b.lower),
			strings.Compare(a.name, b.name), strings.Compare(a.slug, b.slug))
	})
}

// sets holds the distinct paths each class draws from.
type sets struct {
	in     inputs
	sample []perfume // a uniform sample of the catalogue, in random order
	search []string
	match  []string
	list   []string // in random order
	pages  []string // the list set, first page first
}

// newSets makes the distinct sets: n of each (fewer when the catalogue or
// the profiles run out), all drawn with seed.
func newSets(in inputs, n int, seed uint64) *sets {
	s := &sets{in: in}
	perm := rng(seed, "sample").Perm(len(in.perfumes))
	shuffled := make([]perfume, len(perm))
	for i, j := range perm {
		shuffled[i] = in.perfumes[j]
	}
	s.sample = shuffled[:min(n, len(shuffled))]
	s.search = searchSet(shuffled, in.queries, n, seed)
	s.match = matchSet(in.accords, in.notes, n, seed)
	s.list, s.pages = listSet(len(in.perfumes), n, seed)
	return s
}

// forClass returns the class's cold set (in order) and, for zipf, its
// distinct paths ranked most asked first: n of them, the k-th (from 0)
// ranked(k).
func (s *sets) forClass(class string) (set []string, n int, ranked func(k int) string, err error) {
	from := func(paths []string) func(int) string { return func(k int) string { return paths[k] } }
	var format func(slug string) string
	switch class {
	case "detail":
		format = func(slug string) string { return "/api/perfumes/" + url.PathEscape(slug) }
	case "similar":
		format = func(slug string) string { return "/api/perfumes/" + url.PathEscape(slug) + "/similar" }
	case "dupes":
		format = func(slug string) string { return "/api/perfumes/" + url.PathEscape(slug) + "/dupes" }
	case "page": // the website's perfume pages (HTML)
		format = func(slug string) string { return "/perfumes/" + url.PathEscape(slug) }
	case "search":
		return s.search, len(s.search), from(s.search), nil
	case "match":
		return s.match, len(s.match), from(s.match), nil
	case "list":
		return s.list, len(s.pages), from(s.pages), nil
	case "brands", "notes":
		one := []string{"/api/" + class}
		return one, 1, from(one), nil
	default:
		return nil, 0, nil, fmt.Errorf("unknown class %q", class)
	}
	for _, p := range s.sample {
		set = append(set, format(p.slug))
	}
	return set, len(s.in.perfumes), func(k int) string { return format(s.in.perfumes[k].slug) }, nil
}

// searchSet makes n distinct searches (compared ignoring case and spacing):
// the given queries, then for perfumes in turn one of "brand name", the
// name, the name with one letter dropped (a typo) and a prefix of the name;
// shuffled.
func searchSet(perfumes []perfume, queries []string, n int, seed uint64) []string {
	r := rng(seed, "search")
	seen := map[string]bool{}
	var qs []string
	add := func(q string) {
		q = strings.Join(strings.Fields(q), " ")
		if rs := []rune(q); len(rs) > maxQueryLen {
			q = strings.TrimSpace(string(rs[:maxQueryLen]))
		}
		k := strings.ToLower(q)
		if q == "" || seen[k] || len(qs) >= n {
			return
		}
		seen[k] = true
		qs = append(qs, q)
	}
	for _, q := range queries {
		add(q)
	}
	for i, p := range perfumes {
		if len(qs) >= n {
			break
		}
		switch i % 4 {
		case 0:
			add(p.brand + " " + p.name)
		case 1:
			add(p.name)
		case 2:
			add(typo(p.name, r))
		case 3:
			add(prefix(p.name, r))
		}
	}
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	paths := make([]string, len(qs))
	for i, q := range qs {
		paths[i] = "/api/perfumes?q=" + url.QueryEscape(q)
	}
	return paths
}

// typo drops one letter of name, when it has four or more.
func typo(name string, r *rand.Rand) string {
	rs := []rune(name)
	var letters []int
	for i, c := range rs {
		if unicode.IsLetter(c) {
			letters = append(letters, i)
		}
	}
	if len(letters) < 4 {
		return name
	}
	i := letters[r.IntN(len(letters))]
	return string(rs[:i]) + string(rs[i+1:])
}

// prefix cuts name after three or more characters, before its end.
func prefix(name string, r *rand.Rand) string {
	rs := []rune(strings.TrimSpace(name))
	if len(rs) <= 4 {
		return name
	}
	return string(rs[:3+r.IntN(len(rs)-3)])
}

// matchSet makes up to n distinct match profiles, shuffled: every pair of
// the commonest accords, with no note or one of the commonest, with no
// filter, a gender, a season or both.
func matchSet(accords, notes []string, n int, seed uint64) []string {
	accords = accords[:min(matchAccords, len(accords))]
	notes = append([]string{""}, notes[:min(matchNotes, len(notes))]...)
	filters := []string{""}
	for _, g := range genders {
		filters = append(filters, "&gender="+g)
	}
	for _, s := range seasons {
		filters = append(filters, "&season="+s)
	}
	for _, g := range genders {
		for _, s := range seasons {
			filters = append(filters, "&gender="+g+"&season="+s)
		}
	}
	var ps []string
	for i, a := range accords {
		for _, b := range accords[i+1:] {
			for _, note := range notes {
				for _, f := range filters {
					p := "/api/perfumes/match?accords=" + url.QueryEscape(a) + "," + url.QueryEscape(b)
					if note != "" {
						p += "&notes=" + url.QueryEscape(note)
					}
					ps = append(ps, p+f)
				}
			}
		}
	}
	rng(seed, "match").Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps[:min(n, len(ps))]
}

// The limits a list page asks for.
const minListLimit, maxListLimit = 10, 100

// listSet makes up to n distinct list pages within the catalogue of count
// perfumes (a limit from 10 to 100 and a page that is not past the end):
// in random order, and ranked by page (then limit), first page first.
func listSet(count, n int, seed uint64) (set, ranked []string) {
	type pg struct{ page, limit int }
	total := 0
	for l := minListLimit; l <= maxListLimit; l++ {
		total += (count + l - 1) / l
	}
	r := rng(seed, "list")
	var pgs []pg
	if n >= total/2 {
		// Few pages: take them all, shuffled, then the first n.
		for l := minListLimit; l <= maxListLimit; l++ {
			for p := 1; (p-1)*l < count; p++ {
				pgs = append(pgs, pg{p, l})
			}
		}
		r.Shuffle(len(pgs), func(i, j int) { pgs[i], pgs[j] = pgs[j], pgs[i] })
		pgs = pgs[:min(n, len(pgs))]
	} else {
		seen := map[pg]bool{}
		for len(pgs) < n {
			l := minListLimit + r.IntN(maxListLimit-minListLimit+1)
			p := pg{1 + r.IntN((count+l-1)/l), l}
			if !seen[p] {
				seen[p] = true
				pgs = append(pgs, p)
			}
		}
	}
	path := func(p pg) string {
		return "/api/perfumes?page=" + strconv.Itoa(p.page) + "&limit=" + strconv.Itoa(p.limit)
	}
	for _, p := range pgs {
		set = append(set, path(p))
	}
	slices.SortFunc(pgs, func(a, b pg) int { return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.limit, b.limit)) })
	for _, p := range pgs {
		ranked = append(ranked, path(p))
	}
	return set, ranked
}

// rng is a generator of its own for each purpose, so that adding a class
// or changing one set leaves the others as they were.
func rng(seed uint64, purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// zipf draws ranks 0..n-1, rank k (from 0) with weight 1/(k+1)^s. Unlike
// math/rand's Zipf it takes any s > 0, s = 1 included.
type zipf struct {
	cdf []float64
	r   *rand.Rand
}

func newZipf(n int, s float64, seed uint64, purpose string) *zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	return &zipf{cdf: cdf, r: rng(seed, "zipf "+purpose)}
}

func (z *zipf) next() int {
	u := z.r.Float64() * z.cdf[len(z.cdf)-1]
	return min(sort.SearchFloat64s(z.cdf, u), len(z.cdf)-1)
}
