package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/evaluation"
	"github.com/fragrance-data/fragrance/internal/index"
)

// runEval prints the relevance scores of search and dupes on the built-in
// evaluation sets (internal/evaluation).
func runEval(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("eval", "eval [search|dupes|describe|recommend|all] [--db PATH] [--curated FILE] [--verbose]\n\n"+
		"Scores the perfume search (accuracy and mean reciprocal rank per kind of query),\n"+
		"the dupes (recall at 10 and 20 of well-known clone pairs), descriptions and\n"+
		"recommendations (precision at 10 against each case's intent, and how well known the\n"+
		"first 10 are against the best the catalogue holds) on the evaluation sets built\n"+
		"into the binary. Without --db it scores the bundled catalogue; with --db, the catalogue\n"+
		"of that database, whose slugs must be the bundled ones (a database filled from it).", cio)
	dsn := f.String("db", "", "score the catalogue of this database (SQLite path or postgres:// URL) instead of the bundled one")
	curated := f.String("curated", "", "CSV file of curated similar pairs (slug,slug), as serve takes")
	verbose := f.Bool("verbose", false, "list every failed search case and the rank of every dupe pair")
	// The set may come before the flags or after them.
	what := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		what, args = args[0], args[1:]
	}
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	switch {
	case f.NArg() > 1 || (f.NArg() == 1 && what != ""):
		fmt.Fprintln(cio.stderr, "fragrance eval: name one set: search, dupes, describe, recommend or all")
		return errUsage
	case f.NArg() == 1:
		what = f.Arg(0)
	case what == "":
		what = "all"
	}
	sets := map[string]func(cmdIO, *index.Index, bool) error{
		"search": printSearchScores, "dupes": printDupesScores, "describe": printDescribeScores, "recommend": printRecommendScores,
	}
	if sets[what] == nil && what != "all" {
		fmt.Fprintf(cio.stderr, "fragrance eval: unknown set %q; use search, dupes, describe, recommend or all\n", what)
		return errUsage
	}
	ix, err := evalIndex(ctx, *dsn, *curated)
	if err != nil {
		return err
	}
	for i, set := range []string{"search", "dupes", "describe", "recommend"} {
		if what != "all" && what != set {
			continue
		}
		if what == "all" && i > 0 {
			fmt.Fprintln(cio.stdout)
		}
		if err := sets[set](cio, ix, *verbose); err != nil {
			return err
		}
	}
	return nil
}

func printDescribeScores(cio cmdIO, ix *index.Index, verbose bool) error {
	cases, err := evaluation.DescribeCases()
	if err != nil {
		return err
	}
	return evaluation.WriteDiscovery(cio.stdout, "descriptions", evaluation.EvaluateDescribe(ix, cases), verbose)
}

func printRecommendScores(cio cmdIO, ix *index.Index, verbose bool) error {
	cases, err := evaluation.RecommendCases()
	if err != nil {
		return err
	}
	r, err := evaluation.EvaluateRecommend(ix, cases)
	if err != nil {
		return err
	}
	return evaluation.WriteDiscovery(cio.stdout, "tastes", r, verbose)
}

// evalIndex builds the index to score: the bundled catalogue's, or the
// catalogue of the database at dsn, which must exist already.
func evalIndex(ctx context.Context, dsn, curatedPath string) (*index.Index, error) {
	if dsn == "" {
		ps, ref, err := evaluation.BundledPerfumes()
		if err != nil {
			return nil, err
		}
		curated, err := readCurated(curatedPath)
		if err != nil {
			return nil, err
		}
		return index.Build(ps, index.Options{AccordColor: ref.Color, Curated: curated}), nil
	}
	store, err := openExistingStore(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, err
	}
	ix, err := buildIndex(ctx, store, ref, curatedPath)
	if err != nil {
		return nil, err
	}
	if ix.Len() == 0 {
		return nil, fmt.Errorf("eval: database %s holds no perfumes", redactDSN(dsn))
	}
	return ix, nil
}

func printSearchScores(cio cmdIO, ix *index.Index, verbose bool) error {
	cases, err := evaluation.SearchCases()
	if err != nil {
		return err
	}
	r, err := evaluation.EvaluateSearch(evaluation.FromIndex(ix), cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "Search: %d queries; a query passes when its perfume reaches its rank (none: nothing found)\n\n", len(cases))
	return evaluation.WriteSearch(cio.stdout, r, verbose)
}

func printDupesScores(cio cmdIO, ix *index.Index, verbose bool) error {
	pairs, err := evaluation.DupePairs()
	if err != nil {
		return err
	}
	r, err := evaluation.EvaluateDupes(evaluation.FromIndex(ix), pairs)
	if err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "Dupes: %d original → dupe pairs; recall@k is the share found among the first k dupes\n\n", len(pairs))
	return evaluation.WriteDupes(cio.stdout, r, verbose)
}
