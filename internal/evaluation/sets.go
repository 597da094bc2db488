// Package evaluation measures the relevance of the perfume search, of
// the dupes ranking, of descriptions and of recommendations on fixed
// evaluation sets, kept as data files embedded in the binary
// (data/search.tsv, data/dupes.tsv, data/describe.tsv,
// data/recommend.tsv), and scores an index against them. The sets are evaluation data only: no ranking code reads them, so a
// score measures the ranking rather than a memorised answer. See README.md
// for the metrics and the scores reached.
package evaluation

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

var (
	//go:embed data/search.tsv
	searchTSV string
	//go:embed data/dupes.tsv
	dupesTSV string
)

// CategoryNone is the category of search cases that must find nothing.
const CategoryNone = "none"

// SearchCase is one query as a user types it, with the perfume it must
// find and the rank (1 = first) that perfume must reach. Cases of category
// CategoryNone have no Want and succeed on an empty result.
type SearchCase struct {
	Query    string
	Want     string
	MaxRank  int
	Category string
	Line     int
}

// DupePair is an expensive original and a cheaper perfume widely said to
// smell like it.
type DupePair struct {
	Original, Dupe string
	Line           int
}

// SearchCases returns the built-in search evaluation set, in file order.
func SearchCases() ([]SearchCase, error) { return ParseSearchCases(searchTSV) }

// DupePairs returns the built-in dupes evaluation set, in file order.
func DupePairs() ([]DupePair, error) { return ParseDupePairs(dupesTSV) }

// ParseSearchCases reads the search set format: tab-separated query,
// expected slug ("-" for none), maximum rank, category; blank lines and
// lines starting with "#" are skipped.
func ParseSearchCases(text string) ([]SearchCase, error) {
	var out []SearchCase
	err := eachRow(text, 4, func(line int, f []string) error {
		rank, err := strconv.Atoi(f[2])
		c := SearchCase{Query: f[0], Want: f[1], MaxRank: rank, Category: f[3], Line: line}
		switch {
		case err != nil:
			return fmt.Errorf("rank %q: not a whole number", f[2])
		case c.Query == "" || c.Category == "":
			return fmt.Errorf("empty query or category")
		case c.Category == CategoryNone && (c.Want != "-" || rank != 0):
			return fmt.Errorf("a %q case takes slug \"-\" and rank 0", CategoryNone)
		case c.Category != CategoryNone && (c.Want == "" || c.Want == "-" || rank < 1):
			return fmt.Errorf("a case needs a slug and a rank of at least 1")
		}
		if c.Category == CategoryNone {
			c.Want = ""
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// ParseDupePairs reads the dupes set format: tab-separated original slug
// and dupe slug; blank lines and lines starting with "#" are skipped.
func ParseDupePairs(text string) ([]DupePair, error) {
	var out []DupePair
	err := eachRow(text, 2, func(line int, f []string) error {
		if f[0] == "" || f[1] == "" || f[0] == f[1] {
			return fmt.Errorf("a pair needs two different slugs")
		}
		out = append(out, DupePair{Original: f[0], Dupe: f[1], Line: line})
		return nil
	})
	return out, err
}

// eachRow calls fn with the trimmed fields of every data line, which must
// have exactly n tab-separated fields.
func eachRow(text string, n int, fn func(line int, fields []string) error) error {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != n {
			return fmt.Errorf("line %d: %d fields, want %d", i+1, len(f), n)
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		if err := fn(i+1, f); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}
