package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
)

func runImport(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("import", "import [--db PATH] [--strict] [--replace] FILE|DIR\n\n"+
		"Imports JSON Lines (gzipped or not, the format of the bundled catalogue) or a FragDB\n"+
		"dataset (its folder, or its fragrances.csv) as an upsert by source id, in one transaction.\n"+
		"Malformed rows are reported with file, line and reason and left out; the rest are imported.\n"+
		"With --replace the file is the whole catalogue: stored perfumes absent from it are deleted\n"+
		"(the change feed shows them as deleted).", cio)
	dsn := f.DB()
	strict := f.Bool("strict", false, "import nothing when any row is rejected")
	replace := f.Bool("replace", false, "delete the stored perfumes the file does not hold")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() != 1 {
		f.Usage()
		return errUsage
	}
	path := f.Arg(0)

	ref, err := bundled.LoadReference()
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := importer.New(ref).ReadPath(path)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(cio.stderr, "warning:", w)
	}
	for _, re := range res.Rejected {
		fmt.Fprintln(cio.stderr, "rejected:", re.Error())
	}
	if *strict && len(res.Rejected) > 0 {
		return fmt.Errorf("%d rows rejected; nothing imported (--strict)", len(res.Rejected))
	}
	store, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	bar := newProgress(cio.stderr, len(res.Perfumes))
	importFn := store.ImportPerfumes
	if *replace {
		if len(res.Rejected) > 0 {
			return fmt.Errorf("%d rows rejected; nothing imported (--replace would delete them)", len(res.Rejected))
		}
		importFn = store.ReplacePerfumes
	}
	sum, err := importFn(ctx, res.Perfumes, bar.set)
	bar.done()
	if err != nil {
		return fmt.Errorf("import %s: nothing was changed: %w", path, err)
	}
	deleted := ""
	if *replace {
		deleted = fmt.Sprintf(", %d deleted", sum.Deleted)
	}
	fmt.Fprintf(cio.stdout, "imported %s in %.1fs: %d added, %d updated, %d unchanged, %d rejected%s\n",
		path, time.Since(start).Seconds(), sum.Added, sum.Updated, sum.Unchanged, len(res.Rejected), deleted)
	return nil
}

// seedIfEmpty fills a store that has never had a catalogue, so a fresh
// database answers at once: with the catalogue file at path, or the
// bundled catalogue when path is empty.
func seedIfEmpty(ctx context.Context, store catalog.Store, ref *bundled.Reference, path string) (bool, error) {
	v, err := store.CatalogueVersion(ctx)
	if err != nil || v > 0 {
		return false, err
	}
	var res *importer.Result
	if path == "" {
		res, err = importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	} else {
		res, err = importer.New(ref).ReadPath(path)
	}
	if err != nil {
		return false, fmt.Errorf("read catalogue to fill the new database: %w", err)
	}
	if len(res.Rejected) > 0 {
		return false, fmt.Errorf("catalogue to fill the new database: %d rows rejected, first: %v", len(res.Rejected), res.Rejected[0])
	}
	if _, err := store.ImportPerfumes(ctx, res.Perfumes, nil); err != nil {
		return false, fmt.Errorf("fill the new database: %w", err)
	}
	return true, nil
}

// progress draws a progress bar on a terminal and nothing elsewhere.
type progress struct {
	w     io.Writer
	total int
	on    bool
	last  time.Time
}

func newProgress(w io.Writer, total int) *progress {
	on := false
	if f, ok := w.(*os.File); ok {
		on = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, total: total, on: on}
}

func (p *progress) set(done int) {
	if !p.on || p.total == 0 || (time.Since(p.last) < 100*time.Millisecond && done < p.total) {
		return
	}
	p.last = time.Now()
	const width = 40
	n := done * width / p.total
	fmt.Fprintf(p.w, "\r[%-*s] %3d%% %d/%d", width, strings.Repeat("=", n), done*100/p.total, done, p.total)
}

// count shows how many items are done when the total is not known.
func (p *progress) count(done int) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r%d written", done)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}
