// Package blevebench puts the service's perfume search beside bleve, the
// search library a Go developer would reach for, on the same catalogue and
// the same queries: the relevance evaluation set of internal/evaluation.
//
// It is its own module so that the service never depends on bleve. It can
// still import the service's internal packages: Go allows an import of
// .../internal/... from any package whose import path lies under the
// directory above internal, and this module's path,
// github.com/fragrance-data/fragrance/bench/bleve, does (the replace
// directive in go.mod points the main module at ../..). So both sides are
// scored by the very same evaluation code, on the perfumes and slugs of
// evaluation.BundledPerfumes.
//
//	cd bench/bleve
//	go test -run TestCompare -v          # evaluation scores, side by side
//	go test -run '^$' -bench . -benchmem # time per query, side by side
package blevebench

import (
	"fmt"
	"os"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// analyzerName is the analyser of both fields and of the queries: Unicode
// word tokens, accents folded to ASCII, lower case — what "hermes" needs to
// find "Hermès". No stop words: "No 5" and "Le Male" need theirs.
const analyzerName = "folded"

// Searcher is a bleve index of the perfumes' names and brands, queried the
// way a Go developer would write a search box with bleve.
type Searcher struct {
	// Plain drops the fuzziness and the prefix query, ScoreOnly the
	// popularity tie-break (sorting by a field loads it for every hit):
	// together bleve's fastest setup, and what it gives up in relevance.
	Plain, ScoreOnly bool
	idx              bleve.Index
	dir              string
	analyzer         analysis.Analyzer
	tiers            map[string]catalog.PriceTier
}

// doc is what bleve indexes of a perfume.
type doc struct {
	Name        string  `json:"name"`
	Brand       string  `json:"brand"`
	RatingCount float64 `json:"ratingCount"`
}

// NewSearcher indexes ps with bleve's default (scorch) index in a temporary
// directory; Close removes it.
func NewSearcher(ps []catalog.Perfume) (*Searcher, error) {
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bleve-bench-")
	if err != nil {
		return nil, err
	}
	idx, err := bleve.New(dir+"/perfumes.bleve", m)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("bleve: create index: %w", err)
	}
	s := &Searcher{idx: idx, dir: dir, analyzer: m.AnalyzerNamed(analyzerName), tiers: make(map[string]catalog.PriceTier, len(ps))}
	// One batch: one segment, as after a full merge, bleve's fastest state.
	batch := idx.NewBatch()
	for i := range ps {
		p := &ps[i]
		s.tiers[p.Slug] = p.PriceTier
		if err := batch.Index(p.Slug, doc{Name: p.Name, Brand: p.Brand, RatingCount: float64(p.RatingCount)}); err != nil {
			s.Close()
			return nil, fmt.Errorf("bleve: index %s: %w", p.Slug, err)
		}
	}
	if err := idx.Batch(batch); err != nil {
		s.Close()
		return nil, fmt.Errorf("bleve: batch: %w", err)
	}
	return s, nil
}

// newMapping indexes name and brand as text with the folding analyser, and
// the rating count as a number to break ties by popularity, as the
// service does.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	err := m.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"char_filters":  []string{asciifolding.Name},
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, fmt.Errorf("bleve: analyser: %w", err)
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzerName
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("name", text)
	dm.AddFieldMappingsAt("brand", text)
	dm.AddFieldMappingsAt("ratingCount", bleve.NewNumericFieldMapping())
	m.DefaultMapping = dm
	m.DefaultAnalyzer = analyzerName
	return m, nil
}

// Close closes the index and removes its files.
func (s *Searcher) Close() error {
	err := s.idx.Close()
	os.RemoveAll(s.dir)
	return err
}

// query is the search box: every word matched fuzzily (one edit) in the
// name (boosted) or the brand, and the last word also as a prefix of a
// name word, for search as you type.
func (s *Searcher) query(q string) query.Query {
	var qs []query.Query
	for _, f := range []struct {
		field string
		boost float64
	}{{"name", 2}, {"brand", 1}} {
		mq := bleve.NewMatchQuery(q)
		mq.SetField(f.field)
		mq.Analyzer = analyzerName
		if !s.Plain {
			mq.SetFuzziness(1)
		}
		mq.SetBoost(f.boost)
		qs = append(qs, mq)
	}
	if s.Plain {
		return bleve.NewDisjunctionQuery(qs...)
	}
	if toks := s.analyzer.Analyze([]byte(q)); len(toks) > 0 {
		pq := bleve.NewPrefixQuery(string(toks[len(toks)-1].Term))
		pq.SetField("name")
		qs = append(qs, pq)
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// Search returns the slugs of the first limit results of q, best first
// (ties: most rated first), and how many perfumes matched.
func (s *Searcher) Search(q string, limit int) ([]string, int) {
	if strings.TrimSpace(q) == "" {
		return nil, 0
	}
	req := bleve.NewSearchRequestOptions(s.query(q), limit, 0, false)
	if !s.ScoreOnly {
		req.SortBy([]string{"-_score", "-ratingCount"})
	}
	res, err := s.idx.Search(req)
	if err != nil {
		return nil, 0
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, int(res.Total)
}

// Tier returns a perfume's price tier (evaluation.Index).
func (s *Searcher) Tier(slug string) (catalog.PriceTier, error) {
	t, ok := s.tiers[slug]
	if !ok {
		return catalog.TierUnknown, fmt.Errorf("perfume %q: %w", slug, catalog.ErrNotFound)
	}
	return t, nil
}

// Dupes is not something bleve does; the comparison is of search only.
func (s *Searcher) Dupes(slug string, limit int) ([]string, error) {
	return nil, fmt.Errorf("bleve has no dupes: %w", catalog.ErrInvalid)
}
