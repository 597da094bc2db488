package site

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
)

// What the taste page asks of the catalogue: a page of perfumes for a
// taste, each with its reasons, from the index's recommendation (the one
// /api/perfumes/recommend answers from), in the words the page shows.

// recommendations is a page of perfumes recommended for a taste, and
// the number of pages.
type recommendations struct {
	Items []recommendation
	Pages int
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

// reasonNames is the most accords and notes a reason names.
const reasonNames = 4

// recommend is page page of the index's recommendations for liked (at
// least one) and disliked.
func recommend(ix *index.Index, liked, disliked []*index.Entry, page, limit int) (recommendations, error) {
	res, err := ix.Recommend(index.RecommendQuery{Liked: slugsOf(liked), Disliked: slugsOf(disliked), Page: page, Limit: limit})
	if err != nil {
		return recommendations{}, fmt.Errorf("recommend for the taste page: %w", err)
	}
	out := recommendations{Pages: res.Pages}
	for _, it := range res.Items {
		rec := recommendation{Entry: it.Entry}
		for _, r := range it.Reasons {
			rec.Reasons = append(rec.Reasons, reason{With: r.Liked.Name(), Shared: sharedNames(r)})
		}
		out.Items = append(out.Items, rec)
	}
	return out, nil
}

func slugsOf(es []*index.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Slug()
	}
	return out
}

// sharedNames are the accords (strongest first, half of reasonNames at
// most) and then the notes a reason names, in lower case as a sentence
// names them, each once (the accord vanilla and the note Vanilla are one
// word), reasonNames at most.
func sharedNames(r index.Reason) []string {
	var out []string
	add := func(name string) {
		name = strings.ToLower(name)
		if len(out) < reasonNames && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for i := 0; i < r.Accords.Len() && i < reasonNames/2; i++ {
		add(r.Accords.At(i).Name)
	}
	for _, n := range r.Notes {
		add(n)
	}
	return out
}
