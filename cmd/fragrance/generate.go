package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"
)

func runGenerate(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("generate", "generate [--count N] [--seed N] [--out FILE]\n\n"+
		"Writes a synthetic catalogue in the JSON Lines import format, drawn from the real\n"+
		"distributions of the bundled catalogue, for import and load tests. A name ending in\n"+
		".gz is gzipped. Without --out it writes to stdout.", cio)
	count := f.Int("count", 100000, "number of perfumes")
	seed := f.Int("seed", 1, "random seed; the same seed gives the same file")
	out := f.String("out", "", "output file (default stdout)")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	ref, err := bundled.LoadReference()
	if err != nil {
		return err
	}
	sample, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return err
	}
	if *out == "" {
		return importer.Generate(cio.stdout, *count, int64(*seed), sample.Perfumes)
	}
	if err := writeFile(*out, func(w io.Writer) error {
		return importer.Generate(w, *count, int64(*seed), sample.Perfumes)
	}); err != nil {
		return err
	}
	fmt.Fprintf(cio.stderr, "wrote %d perfumes to %s\n", *count, *out)
	return nil
}

// writeFile creates path and lets write fill it, gzip-compressed when path
// ends in .gz. Success means every byte reached the file: the gzip footer
// and the file's close are checked, and a file that failed is removed
// rather than left looking whole.
func writeFile(path string, write func(w io.Writer) error) (err error) {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if !strings.HasSuffix(path, ".gz") {
		return write(file)
	}
	gz := gzip.NewWriter(file)
	if err := write(gz); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
