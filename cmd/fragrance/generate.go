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
	var w io.Writer = cio.stdout
	if *out != "" {
		file, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer file.Close()
		w = file
		if strings.HasSuffix(*out, ".gz") {
			gz := gzip.NewWriter(file)
			defer gz.Close()
			w = gz
		}
	}
	if err := importer.Generate(w, *count, int64(*seed), sample.Perfumes); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(cio.stderr, "wrote %d perfumes to %s\n", *count, *out)
	}
	return nil
}
