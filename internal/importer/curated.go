package importer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// ReadCurated reads an operator's curated similar pairs: CSV rows of two
// perfume slugs ("slug,slug"), blank lines and lines starting with # skipped,
// spaces around a slug ignored. A row without exactly two slugs, with one
// that is not a slug as the service writes them (search.Slugify leaves it
// unchanged: "creed-aventus"), or pairing a slug with itself is an error
// naming name and its line (wrapping catalog.ErrInvalid); slugs the
// catalogue lacks are the index's to ignore.
func ReadCurated(r io.Reader, name string) ([][2]string, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = 2
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var out [][2]string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("curated pairs %s: %w: %w", name, err, catalog.ErrInvalid)
		}
		a, b := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		line, _ := cr.FieldPos(0)
		switch {
		case a == "" || b == "":
			return nil, fmt.Errorf("curated pairs %s:%d: want two slugs, got %q and %q: %w", name, line, a, b, catalog.ErrInvalid)
		case search.Slugify(a) != a || search.Slugify(b) != b:
			return nil, fmt.Errorf("curated pairs %s:%d: %q or %q is not a slug (lower-case letters and digits, words joined by single hyphens: creed-aventus): %w",
				name, line, a, b, catalog.ErrInvalid)
		case a == b:
			return nil, fmt.Errorf("curated pairs %s:%d: %q is paired with itself: %w", name, line, a, catalog.ErrInvalid)
		}
		out = append(out, [2]string{a, b})
	}
}
