// Package bundled holds the data files shipped inside the binary: the
// perfume catalogue a fresh install starts from, the accord colour table and
// the brand price-tier table. See README.md in this folder for sources and
// licences.
package bundled

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// CatalogueName names the embedded catalogue in messages and row errors.
const CatalogueName = "bundled catalogue.jsonl.gz"

// The colours given to an accord the colour table does not know: a mid grey
// that reads as "no particular colour", with black text for contrast.
const (
	NeutralColor     = "#A0A0A0"
	NeutralTextColor = "#000000"
)

var (
	//go:embed catalogue.jsonl.gz
	catalogueGz []byte
	//go:embed accord_colors.csv
	accordColorsCSV []byte
	//go:embed brand_tiers.csv
	brandTiersCSV []byte
)

// Catalogue returns a fresh reader over the embedded catalogue: gzipped
// JSON Lines, one perfume per line (format in README.md). Each call starts
// at the beginning, so callers may read it concurrently.
func Catalogue() io.Reader { return bytes.NewReader(catalogueGz) }

// AccordColor is how an accord's bar is drawn: a background colour and the
// text colour that contrasts with it, both "#RRGGBB".
type AccordColor struct {
	Color     string
	TextColor string
}

// Reference holds the lookup tables that are not perfume records. Both maps
// are keyed by search.Fold of the name, so spelling variants of punctuation,
// accents and case ("Dolce&Gabbana", "Dolce & Gabbana") find the same entry.
// Build it with LoadReference; treat it as read-only afterwards.
type Reference struct {
	AccordColors map[string]AccordColor
	BrandTiers   map[string]catalog.PriceTier
}

// LoadReference parses the embedded accord colour and brand tier tables.
func LoadReference() (*Reference, error) {
	colors, err := parseAccordColors(accordColorsCSV)
	if err != nil {
		return nil, fmt.Errorf("bundled accord_colors.csv: %w", err)
	}
	tiers, err := parseBrandTiers(brandTiersCSV)
	if err != nil {
		return nil, fmt.Errorf("bundled brand_tiers.csv: %w", err)
	}
	return &Reference{AccordColors: colors, BrandTiers: tiers}, nil
}

// Tier returns the price tier of brand, or catalog.TierUnknown when the
// table does not list it (or lists it without a tier).
func (r *Reference) Tier(brand string) catalog.PriceTier {
	return r.BrandTiers[search.Fold(brand)]
}

// Accord returns the colours of an accord; unknown accords get the neutral
// grey so every accord can still be drawn.
func (r *Reference) Accord(name string) AccordColor {
	if c, ok := r.AccordColors[search.Fold(name)]; ok {
		return c
	}
	return AccordColor{Color: NeutralColor, TextColor: NeutralTextColor}
}

// Color returns the bar colour of an accord, neutral grey when unknown.
func (r *Reference) Color(accord string) string { return r.Accord(accord).Color }

// readTable parses a comma-separated table with a header row and checks
// that the wanted columns are there, returning their indexes in order.
func readTable(data []byte, want ...string) ([][]string, []int, error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("parse: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil, errors.New("empty table")
	}
	cols := make([]int, len(want))
	for i, name := range want {
		cols[i] = -1
		for j, h := range rows[0] {
			if strings.TrimSpace(h) == name {
				cols[i] = j
			}
		}
		if cols[i] < 0 {
			return nil, nil, fmt.Errorf("missing column %q", name)
		}
	}
	return rows[1:], cols, nil
}

func parseAccordColors(data []byte) (map[string]AccordColor, error) {
	rows, cols, err := readTable(data, "accord", "color", "text_color")
	if err != nil {
		return nil, err
	}
	out := make(map[string]AccordColor, len(rows))
	for i, row := range rows {
		name := search.Fold(row[cols[0]])
		c := AccordColor{Color: strings.TrimSpace(row[cols[1]]), TextColor: strings.TrimSpace(row[cols[2]])}
		if name == "" || !isHexColor(c.Color) || !isHexColor(c.TextColor) {
			return nil, fmt.Errorf("line %d: bad accord colour row %q", i+2, row)
		}
		out[name] = c
	}
	return out, nil
}

func parseBrandTiers(data []byte) (map[string]catalog.PriceTier, error) {
	rows, cols, err := readTable(data, "brand", "tier")
	if err != nil {
		return nil, err
	}
	out := make(map[string]catalog.PriceTier, len(rows))
	for i, row := range rows {
		name := search.Fold(row[cols[0]])
		raw := strings.TrimSpace(row[cols[1]])
		tier := catalog.ParsePriceTier(raw)
		if name == "" || (raw != "" && !tier.Known()) {
			return nil, fmt.Errorf("line %d: bad brand tier row %q", i+2, row)
		}
		// The table is sorted by popularity: should two spellings fold
		// together, the more popular brand's tier wins.
		if _, seen := out[name]; !seen {
			out[name] = tier
		}
	}
	return out, nil
}

func isHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
