package blevebench

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"

	"github.com/fragrance-data/fragrance/internal/evaluation"
	"github.com/fragrance-data/fragrance/internal/index"
)

// sides are the two searchers over the bundled catalogue, built once.
var sides = sync.OnceValues(func() (*pair, error) {
	ps, ref, err := evaluation.BundledPerfumes()
	if err != nil {
		return nil, err
	}
	bl, err := NewSearcher(ps)
	if err != nil {
		return nil, err
	}
	return &pair{ours: index.Build(ps, index.Options{AccordColor: ref.Color}), bleve: bl}, nil
})

type pair struct {
	ours  *index.Index
	bleve *Searcher
}

func TestMain(m *testing.M) {
	code := m.Run()
	if p, err := sides(); err == nil {
		p.bleve.Close()
	}
	os.Exit(code)
}

// TestCompare scores both on the search evaluation set and prints the
// scores per category. The service must score at least as well overall.
func TestCompare(t *testing.T) {
	p, err := sides()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := evaluation.SearchCases()
	if err != nil {
		t.Fatal(err)
	}
	ours, err := evaluation.EvaluateSearch(evaluation.FromIndex(p.ours), cases)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := evaluation.EvaluateSearch(p.bleve, cases)
	if err != nil {
		t.Fatal(err)
	}
	p.bleve.Plain, p.bleve.ScoreOnly = true, true
	plain, err := evaluation.EvaluateSearch(p.bleve, cases)
	p.bleve.Plain, p.bleve.ScoreOnly = false, false
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tqueries\tours accuracy\tours MRR\tbleve accuracy\tbleve MRR\tfastest bleve accuracy\tfastest bleve MRR\t")
	for _, s := range append(ours.Categories, ours.Overall) {
		o, pl := theirs.Overall, plain.Overall
		if s.Category != "all" {
			o, pl = theirs.Category(s.Category), plain.Category(s.Category)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.3f\t%.1f%%\t%.3f\t%.1f%%\t%.3f\t\n", s.Category, s.Cases,
			100*s.Accuracy(), s.MRR, 100*o.Accuracy(), o.MRR, 100*pl.Accuracy(), pl.MRR)
	}
	tw.Flush()
	t.Logf("search evaluation set, bundled catalogue:\n%s", b.String())
	if ours.Overall.MRR < theirs.Overall.MRR || ours.Overall.Accuracy() < theirs.Overall.Accuracy() {
		t.Errorf("bleve scores higher: ours %.3f MRR %.1f%%, bleve %.3f MRR %.1f%%",
			ours.Overall.MRR, 100*ours.Overall.Accuracy(), theirs.Overall.MRR, 100*theirs.Overall.Accuracy())
	}
}

// BenchmarkSearch runs the queries of the evaluation set in turn, first
// page (20 results, the API's default), on each side: ns/op is the mean
// time of one query. bleve-plain is bleve without fuzziness, prefix and
// popularity tie-break: its fastest setup.
func BenchmarkSearch(b *testing.B) {
	p, err := sides()
	if err != nil {
		b.Fatal(err)
	}
	cases, err := evaluation.SearchCases()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p.ours.Perfumes(index.ListQuery{Q: cases[i%len(cases)].Query, Page: 1, Limit: 20})
			i++
		}
	})
	for _, plain := range []bool{false, true} {
		name := "bleve"
		if plain {
			name = "bleve-plain"
		}
		b.Run(name, func(b *testing.B) {
			p.bleve.Plain, p.bleve.ScoreOnly = plain, plain
			defer func() { p.bleve.Plain, p.bleve.ScoreOnly = false, false }()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p.bleve.Search(cases[i%len(cases)].Query, 20)
				i++
			}
		})
	}
}
