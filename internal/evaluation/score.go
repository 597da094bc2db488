package evaluation

import (
	"fmt"
	"slices"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// Depths to which results are read: the API's largest page of perfumes and
// of dupes. An expected perfume found deeper counts as not found.
const (
	SearchDepth = 100
	DupesDepth  = 50
)

// Index is what the evaluation reads of a catalogue, by slug; FromIndex
// adapts an *index.Index.
type Index interface {
	// Tier returns a perfume's price tier, or an error when there is none
	// with that slug.
	Tier(slug string) (catalog.PriceTier, error)
	// Search returns the slugs of the first limit results of q and the
	// number of results in all.
	Search(q string, limit int) (slugs []string, total int)
	// Dupes returns the slugs of the first limit dupes of a perfume.
	Dupes(slug string, limit int) ([]string, error)
}

// FromIndex adapts ix to Index.
func FromIndex(ix *index.Index) Index { return indexAdapter{ix} }

type indexAdapter struct{ ix *index.Index }

func (a indexAdapter) Tier(slug string) (catalog.PriceTier, error) {
	e, err := a.ix.Perfume(slug)
	if err != nil {
		return catalog.TierUnknown, err
	}
	return e.PriceTier(), nil
}

func (a indexAdapter) Search(q string, limit int) ([]string, int) {
	pg := a.ix.Perfumes(index.ListQuery{Q: q, Page: 1, Limit: limit})
	out := make([]string, len(pg.Entries))
	for i, e := range pg.Entries {
		out[i] = e.Slug()
	}
	return out, pg.Total
}

func (a indexAdapter) Dupes(slug string, limit int) ([]string, error) {
	_, ds, err := a.ix.Dupes(slug, limit)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Slug()
	}
	return out, err
}

// Score sums the outcomes of one group of cases. MRR is the mean
// reciprocal rank: 1/rank of the expected perfume (0 when not found), and
// for a must-find-nothing case 1 when the result is empty, else 0.
type Score struct {
	Category string
	Cases    int
	Passed   int
	MRR      float64
}

// Accuracy is the share of cases passed, 0–1 (0 without cases).
func (s Score) Accuracy() float64 {
	if s.Cases == 0 {
		return 0
	}
	return float64(s.Passed) / float64(s.Cases)
}

// add counts one outcome; finish turns the summed reciprocal ranks into
// their mean.
func (s *Score) add(pass bool, rr float64) {
	s.Cases++
	if pass {
		s.Passed++
	}
	s.MRR += rr
}

func (s *Score) finish() {
	if s.Cases > 0 {
		s.MRR /= float64(s.Cases)
	}
}

// reciprocal is 1/rank, 0 for rank 0 (not found).
func reciprocal(rank int) float64 {
	if rank <= 0 {
		return 0
	}
	return 1 / float64(rank)
}

// SearchOutcome is how one search case fared.
type SearchOutcome struct {
	Case SearchCase
	// Rank is the 1-based place of the expected perfume, 0 when it is not
	// in the first SearchDepth results.
	Rank  int
	Total int
	// Top holds the first slugs found, for reports.
	Top  []string
	Pass bool
}

// SearchReport is the score of a search set, per category (in order of
// first appearance) and overall.
type SearchReport struct {
	Outcomes   []SearchOutcome
	Categories []Score
	Overall    Score
}

// Category returns the score of one category (zero when absent).
func (r SearchReport) Category(name string) Score {
	for _, s := range r.Categories {
		if s.Category == name {
			return s
		}
	}
	return Score{Category: name}
}

// EvaluateSearch runs every case against ix. A case whose expected slug
// the catalogue lacks is an error: the set no longer fits the catalogue.
func EvaluateSearch(ix Index, cases []SearchCase) (SearchReport, error) {
	var r SearchReport
	pos := map[string]int{}
	r.Overall.Category = "all"
	for _, c := range cases {
		if c.Want != "" {
			if _, err := ix.Tier(c.Want); err != nil {
				return SearchReport{}, fmt.Errorf("search case line %d (%q): %w", c.Line, c.Query, err)
			}
		}
		o := runSearch(ix, c)
		r.Outcomes = append(r.Outcomes, o)
		rr := reciprocal(o.Rank)
		if c.Category == CategoryNone {
			rr = 0
			if o.Pass {
				rr = 1
			}
		}
		i, ok := pos[c.Category]
		if !ok {
			i = len(r.Categories)
			pos[c.Category] = i
			r.Categories = append(r.Categories, Score{Category: c.Category})
		}
		r.Categories[i].add(o.Pass, rr)
		r.Overall.add(o.Pass, rr)
	}
	for i := range r.Categories {
		r.Categories[i].finish()
	}
	r.Overall.finish()
	return r, nil
}

// runSearch asks for the first SearchDepth results of one query.
func runSearch(ix Index, c SearchCase) SearchOutcome {
	slugs, total := ix.Search(c.Query, SearchDepth)
	o := SearchOutcome{Case: c, Total: total, Top: slugs[:min(3, len(slugs))]}
	if i := slices.Index(slugs, c.Want); c.Want != "" && i >= 0 {
		o.Rank = i + 1
	}
	if c.Category == CategoryNone {
		o.Pass = total == 0 && len(slugs) == 0
	} else {
		o.Pass = o.Rank >= 1 && o.Rank <= c.MaxRank
	}
	return o
}

// DupeOutcome is where the expected dupe of one pair ranked.
type DupeOutcome struct {
	Pair DupePair
	// Group names the tier step, e.g. "luxury → budget".
	Group string
	// Rank is the 1-based place of the dupe among the original's dupes, 0
	// when it is not in the first DupesDepth.
	Rank int
}

// DupesReport scores a dupes set: recall at 10 and 20 (the share of pairs
// whose dupe is within the first 10 or 20) overall and per tier step.
type DupesReport struct {
	Outcomes []DupeOutcome
	Groups   []DupesScore
	Overall  DupesScore
}

// DupesScore sums the outcomes of a group of pairs.
type DupesScore struct {
	Group      string
	Pairs      int
	At10, At20 int
	// MRR is the mean of 1/rank over the pairs, 0 for a dupe not found.
	MRR float64
}

// RecallAt10 is the share of pairs found within the first 10, 0–1.
func (s DupesScore) RecallAt10() float64 { return share(s.At10, s.Pairs) }

// RecallAt20 is the share of pairs found within the first 20, 0–1.
func (s DupesScore) RecallAt20() float64 { return share(s.At20, s.Pairs) }

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func (s *DupesScore) add(rank int) {
	s.Pairs++
	if rank >= 1 && rank <= 10 {
		s.At10++
	}
	if rank >= 1 && rank <= 20 {
		s.At20++
	}
	s.MRR += (reciprocal(rank) - s.MRR) / float64(s.Pairs) // running mean
}

// EvaluateDupes looks each pair's dupe up among the original's dupes. A
// pair naming an unknown slug, or whose dupe is not of a strictly lower
// known tier, is an error: the set no longer fits the catalogue.
func EvaluateDupes(ix Index, pairs []DupePair) (DupesReport, error) {
	var r DupesReport
	r.Overall.Group = "all"
	pos := map[string]int{}
	for _, p := range pairs {
		o, err := runDupes(ix, p)
		if err != nil {
			return DupesReport{}, err
		}
		r.Outcomes = append(r.Outcomes, o)
		i, ok := pos[o.Group]
		if !ok {
			i = len(r.Groups)
			pos[o.Group] = i
			r.Groups = append(r.Groups, DupesScore{Group: o.Group})
		}
		r.Groups[i].add(o.Rank)
		r.Overall.add(o.Rank)
	}
	return r, nil
}

func runDupes(ix Index, p DupePair) (DupeOutcome, error) {
	orig, err := ix.Tier(p.Original)
	if err != nil {
		return DupeOutcome{}, fmt.Errorf("dupes pair line %d: %w", p.Line, err)
	}
	dupe, err := ix.Tier(p.Dupe)
	if err != nil {
		return DupeOutcome{}, fmt.Errorf("dupes pair line %d: %w", p.Line, err)
	}
	if !dupe.Known() || dupe.Rank() >= orig.Rank() {
		return DupeOutcome{}, fmt.Errorf("dupes pair line %d: %s (%q) is not cheaper than %s (%q)",
			p.Line, p.Dupe, dupe, p.Original, orig)
	}
	o := DupeOutcome{Pair: p, Group: string(orig) + " → " + string(dupe)}
	got, err := ix.Dupes(p.Original, DupesDepth)
	if err != nil {
		return DupeOutcome{}, fmt.Errorf("dupes of %s: %w", p.Original, err)
	}
	if i := slices.Index(got, p.Dupe); i >= 0 {
		o.Rank = i + 1
	}
	return o, nil
}
