package describe

import (
	"math"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Candidate is a perfume a text may name, with the share of the text's
// words (0–1) its brand and name hold.
type Candidate struct {
	*index.Entry
	Score float64
}

// Resolve finds the perfumes text names ("aventus creed", "the Sauvage
// by Dior"), best first, at most limit: the catalogue's name search finds
// them, and each is scored by the share of the text's words found in its
// brand and name (a word found when equal to one of them, or of three
// letters or more and the start of one). Words this parser reads as
// filler ("the", "by", "perfume") do not count; a brand the text names by
// an alias ("ysl") counts as its words when the candidate is that
// brand's.
func (p *Parser) Resolve(ix *index.Index, text string, limit int) []Candidate {
	folded := search.Fold(text)
	var words []string
	brand := ""
	for _, w := range strings.Fields(folded) {
		switch e, ok := p.phrases[w]; {
		case ok && e.kind == kFiller:
		case ok && e.kind == kBrand && brand == "":
			brand = e.slug
			words = append(words, w)
		default:
			words = append(words, w)
		}
	}
	pg := ix.Perfumes(index.ListQuery{Q: text, Page: 1, Limit: limit})
	out := make([]Candidate, 0, len(pg.Entries))
	for _, e := range pg.Entries {
		have := strings.Fields(search.Fold(e.Brand() + " " + e.Name()))
		found := 0
		for _, w := range words {
			if e.BrandSlug() == brand && p.phrases[w].slug == brand {
				found++
				continue
			}
			for _, h := range have {
				if h == w || (len(w) >= 3 && strings.HasPrefix(h, w)) {
					found++
					break
				}
			}
		}
		score := 0.0
		if len(words) > 0 {
			score = math.Round(float64(found)/float64(len(words))*100) / 100
		}
		out = append(out, Candidate{Entry: e, Score: score})
	}
	return out
}
