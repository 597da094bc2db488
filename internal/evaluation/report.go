package evaluation

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteSearch prints a search report: one row per category and a total,
// then, when verbose, every case that failed with what came first instead.
func WriteSearch(w io.Writer, r SearchReport, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tqueries\tpassed\taccuracy\tMRR\t")
	for _, s := range append(r.Categories, r.Overall) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%.3f\t\n", s.Category, s.Cases, s.Passed, 100*s.Accuracy(), s.MRR)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write search report: %w", err)
	}
	if !verbose {
		return nil
	}
	for _, o := range r.Outcomes {
		if o.Pass {
			continue
		}
		got := "not in the first 100"
		if o.Rank > 0 {
			got = fmt.Sprintf("rank %d", o.Rank)
		}
		if o.Case.Category == CategoryNone {
			got = fmt.Sprintf("%d found", o.Total)
		}
		fmt.Fprintf(w, "FAIL %-12s %q want %s ≤ %d: %s; first: %s\n", o.Case.Category, o.Case.Query,
			orDash(o.Case.Want), o.Case.MaxRank, got, strings.Join(o.Top, ", "))
	}
	return nil
}

// WriteDupes prints a dupes report: one row per tier step and a total,
// then, when verbose, the rank of every pair.
func WriteDupes(w io.Writer, r DupesReport, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tiers\tpairs\t@10\t@20\trecall@10\trecall@20\tMRR\t")
	for _, s := range append(r.Groups, r.Overall) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.3f\t\n", s.Group, s.Pairs, s.At10, s.At20,
			100*s.RecallAt10(), 100*s.RecallAt20(), s.MRR)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write dupes report: %w", err)
	}
	if !verbose {
		return nil
	}
	for _, o := range r.Outcomes {
		rank := "-"
		if o.Rank > 0 {
			rank = fmt.Sprint(o.Rank)
		}
		fmt.Fprintf(w, "%4s  %s → %s\n", rank, o.Pair.Original, o.Pair.Dupe)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteDiscovery writes the scores of a description or taste set titled
// set; verbose lists each case with its results not meeting the intent.
func WriteDiscovery(w io.Writer, set string, r DiscoveryReport, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcases\tprecision@%d\trenown@%d\t\n", set, DiscoveryDepth, DiscoveryDepth)
	fmt.Fprintf(tw, "all\t%d\t%.1f%%\t%.3f\t\n", len(r.Results), 100*r.Precision, r.Renown)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write %s report: %w", set, err)
	}
	if !verbose {
		return nil
	}
	for _, c := range r.Results {
		fmt.Fprintf(w, "%5.0f%% %5.2f  %q", 100*c.Precision, c.Renown, c.Name)
		if len(c.Missed) > 0 {
			fmt.Fprintf(w, "; missing the intent: %s", strings.Join(c.Missed, ", "))
		}
		fmt.Fprintln(w)
	}
	return nil
}
