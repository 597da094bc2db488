package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// exportPage is how many changes export reads from the store at a time.
const exportPage = 1000

// exportCSVHeader is the flat selection of columns of export --format csv.
var exportCSVHeader = []string{"id", "slug", "deleted", "name", "brand", "brand_slug", "year", "gender",
	"concentration", "rating", "rating_count", "price_tier", "accords"}

func runExport(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("export", "export [--db PATH] [--format jsonl|csv] [--since CURSOR] --out FILE\n\n"+
		"Writes the perfumes added or changed since CURSOR (without it, the whole catalogue),\n"+
		"oldest change first, as the change feed GET /api/perfumes/changes pages them, then prints\n"+
		"the cursor to pass next time. jsonl: one catalogue record a line (the format import reads),\n"+
		"a deleted perfume as {\"id\",\"slug\",\"deleted\":true}. csv: the columns "+fmt.Sprint(exportCSVHeader)+",\n"+
		"accords as name:strength separated by ';'. A name ending in .gz is gzipped.", cio)
	dsn := f.DB()
	format := f.String("format", "jsonl", "jsonl or csv")
	since := f.String("since", "", "the cursor an earlier export or the change feed gave (default: from the beginning)")
	out := f.String("out", "", "output file (required)")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() != 0 || *out == "" || (*format != "jsonl" && *format != "csv") {
		f.Usage()
		return errUsage
	}
	seq, err := catalog.ParseCursor(*since)
	if err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	store, err := openExistingStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	bar := newProgress(cio.stderr, 0)
	n := 0
	err = writeFile(*out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		rec := newExportWriter(bw, *format)
		for {
			cs, err := store.Changes(ctx, seq, exportPage)
			if err != nil {
				return err
			}
			for _, c := range cs {
				if err := rec.write(c); err != nil {
					return err
				}
				seq = c.Seq
			}
			n += len(cs)
			bar.count(n)
			if len(cs) < exportPage {
				break
			}
		}
		if err := rec.flush(); err != nil {
			return err
		}
		return bw.Flush()
	})
	bar.done()
	if err != nil {
		return fmt.Errorf("export %s: %w", *out, err)
	}
	fmt.Fprintf(cio.stderr, "wrote %d changes to %s\n", n, *out)
	fmt.Fprintln(cio.stdout, catalog.FormatCursor(seq))
	return nil
}

// exportWriter writes changes in one of export's formats.
type exportWriter struct {
	w   io.Writer
	csv *csv.Writer // nil for jsonl
	enc *json.Encoder
}

func newExportWriter(w io.Writer, format string) *exportWriter {
	e := &exportWriter{w: w}
	if format == "csv" {
		e.csv = csv.NewWriter(w)
		e.csv.Write(exportCSVHeader) // an error is kept for flush
	} else {
		e.enc = json.NewEncoder(w)
		e.enc.SetEscapeHTML(false)
	}
	return e
}

// tombstone is a deleted perfume in jsonl.
type tombstone struct {
	ID      int64  `json:"id"`
	Slug    string `json:"slug"`
	Deleted bool   `json:"deleted"`
}

func (e *exportWriter) write(c catalog.Change) error {
	if e.csv == nil {
		if c.Perfume == nil {
			return e.enc.Encode(tombstone{ID: c.ID, Slug: c.Slug, Deleted: true})
		}
		return e.enc.Encode(c.Perfume)
	}
	return e.csv.Write(csvRow(c))
}

func (e *exportWriter) flush() error {
	if e.csv == nil {
		return nil
	}
	e.csv.Flush()
	return e.csv.Error()
}

// csvRow is one change as export's CSV columns.
func csvRow(c catalog.Change) []string {
	id := strconv.FormatInt(c.ID, 10)
	p := c.Perfume
	if p == nil {
		return []string{id, c.Slug, "true", "", "", "", "", "", "", "", "", "", ""}
	}
	accords := ""
	for i, a := range p.Accords {
		if i > 0 {
			accords += ";"
		}
		accords += a.Name + ":" + strconv.FormatFloat(a.Strength, 'f', -1, 64)
	}
	year := ""
	if p.Year > 0 {
		year = strconv.Itoa(p.Year)
	}
	rating := ""
	if p.Rating > 0 {
		rating = strconv.FormatFloat(p.Rating, 'f', -1, 64)
	}
	return []string{id, p.Slug, "false", p.Name, p.Brand, p.BrandSlug, year, string(p.Gender),
		p.Concentration, rating, strconv.Itoa(p.RatingCount), string(p.PriceTier), accords}
}
