package site

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
)

// What the taste page asks of the catalogue: a page of perfumes for a
// taste, each with its reasons. recommend is the one place the page gets
// them, so that it can take the index's recommendation (the API's
// /api/perfumes/recommend) as is when that is there; until then it reads
// the index's similar lists, ranked and with their shared accords and
// notes as the similar perfumes are.

// recommendations is a page of perfumes recommended for a taste.
type recommendations struct {
	Items        []recommendation
	Total, Pages int
}

// recommendation is a perfume recommended, with its reasons.
type recommendation struct {
	Entry   *index.Entry
	Reasons []reason
}

// reason is what a recommendation shares with a liked perfume.
type reason struct {
	// With is the liked perfume's name; Shared the accords and notes.
	With   string
	Shared []string
}

// similarPerTaste is how many similar perfumes of each liked and
// disliked perfume the recommendation reads (the kept lists' length).
const similarPerTaste = 20

// reasonNames is the most accords and notes a reason names.
const reasonNames = 4

// recommend ranks the perfumes similar to the liked ones: those similar
// to more of them first, then by their summed similarity less their
// similarity to the disliked ones (a perfume closer to the disliked than
// to the liked is left out), then the more rated; never a perfume of the
// taste itself.
func recommend(ix *index.Index, liked, disliked []*index.Entry, page, limit int) (recommendations, error) {
	type cand struct {
		e       *index.Entry
		hits    int
		score   float64
		reasons []reason
	}
	byDoc := map[*index.Entry]*cand{}
	var order []*cand
	inTaste := func(e *index.Entry) bool { return slices.Contains(liked, e) || slices.Contains(disliked, e) }
	for _, l := range liked {
		_, sims, err := ix.Similar(l.Slug(), similarPerTaste)
		if err != nil {
			return recommendations{}, fmt.Errorf("recommend from %s: %w", l.Slug(), err)
		}
		for _, s := range sims {
			if inTaste(s.Entry) {
				continue
			}
			c := byDoc[s.Entry]
			if c == nil {
				c = &cand{e: s.Entry}
				byDoc[s.Entry] = c
				order = append(order, c)
			}
			c.hits++
			c.score += s.Score
			c.reasons = append(c.reasons, reason{With: l.Name(), Shared: sharedNames(s)})
		}
	}
	for _, d := range disliked {
		_, sims, err := ix.Similar(d.Slug(), similarPerTaste)
		if err != nil {
			return recommendations{}, fmt.Errorf("recommend away from %s: %w", d.Slug(), err)
		}
		for _, s := range sims {
			if c := byDoc[s.Entry]; c != nil {
				c.score -= s.Score
			}
		}
	}
	order = slices.DeleteFunc(order, func(c *cand) bool { return c.score <= 0 })
	slices.SortStableFunc(order, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(b.hits, a.hits), cmp.Compare(b.score, a.score), cmp.Compare(b.e.RatingCount, a.e.RatingCount))
	})
	out := recommendations{Total: len(order), Pages: (len(order) + limit - 1) / limit}
	from := (page - 1) * limit
	if from < len(order) {
		for _, c := range order[from:min(from+limit, len(order))] {
			out.Items = append(out.Items, recommendation{Entry: c.e, Reasons: c.reasons})
		}
	}
	return out, nil
}

// sharedNames are the accords (strongest first) and then the notes a
// similar perfume shares with its source, in lower case as a sentence
// names them, each once (the accord vanilla and the note Vanilla are one
// word), reasonNames at most.
func sharedNames(s index.Scored) []string {
	var out []string
	add := func(name string) {
		name = strings.ToLower(name)
		if len(out) < reasonNames && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for i := 0; i < s.SharedAccords.Len() && i < reasonNames/2; i++ {
		add(s.SharedAccords.At(i).Name)
	}
	for _, n := range s.SharedNotes {
		add(n)
	}
	return out
}
