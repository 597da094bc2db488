// Package importer reads perfume datasets from outside files into
// catalog.Perfume records: the project's own JSON Lines format (the bundled
// catalogue's) and the pipe-delimited FragDB format. Rows that cannot be
// used are reported with their file and line and left out; the others are
// kept.
//
// Every row goes through one normalisation, so both sources give the same
// shape of record:
//   - text trimmed and inner white space folded; notes, perfumers and
//     accords without empty or repeated items;
//   - descriptions with HTML tags stripped (block tags become paragraph
//     breaks, "\n\n") and entities decoded; a missing description is
//     replaced by a plain sentence built from brand, year, gender, main
//     accords and key notes;
//   - seasons and day/night on 0–100 with one decimal (fractions of 1 are
//     scaled), accord strengths 0–100 sorted strongest first;
//   - zero for an unknown year, rating, longevity or sillage;
//   - BrandSlug = search.Slugify(brand), Slug = <brand-slug>-<name-slug>
//     as the preferred slug (the store makes it unique), PriceTier from the
//     brand.
package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// RowError is one input row left out of an import, and why.
type RowError struct {
	File   string
	Line   int
	Reason string
}

// Error implements error as "file:line: reason".
func (e RowError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// Result is what a reader made of a file: the usable perfumes in file
// order, the rejected rows, and warnings about the file as a whole (such as
// a FragDB lookup file that is missing, so names could not be resolved).
type Result struct {
	Perfumes []catalog.Perfume
	Rejected []RowError
	Warnings []string
}

// Tiers gives a brand's price tier; *bundled.Reference meets it. Readers
// call it from several goroutines at once.
type Tiers interface {
	Tier(brand string) catalog.PriceTier
}

// Importer reads dataset files. It is safe for concurrent use.
type Importer struct {
	tiers   Tiers
	workers int // parse workers; 0 picks by GOMAXPROCS (tests set it)
}

// New returns an Importer that sets each perfume's PriceTier from tiers.
// tiers may be nil: every tier is then unknown.
func New(tiers Tiers) *Importer { return &Importer{tiers: tiers} }

func (im *Importer) tier(brand string) catalog.PriceTier {
	if im.tiers == nil {
		return catalog.TierUnknown
	}
	return im.tiers.Tier(brand)
}

// ReadPath reads a dataset from disk, telling the format from the path: a
// folder, or a file whose first line is a pipe-delimited header starting
// with "pid|", is FragDB (see ReadFragDB); anything else is JSON Lines,
// gzipped or not.
func (im *Importer) ReadPath(path string) (*Result, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	if info.IsDir() {
		return im.ReadFragDB(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(4)
	if bytes.HasPrefix(bytes.TrimPrefix(head, utf8BOM), []byte("pid|")) {
		return im.ReadFragDB(path)
	}
	return im.ReadJSONL(br, filepath.Base(path))
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}
