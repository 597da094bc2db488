package importer

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The files of a FragDB dataset folder.
const (
	fragdbMain      = "fragrances.csv"
	fragdbAccords   = "accords.csv"
	fragdbNotes     = "notes.csv"
	fragdbBrands    = "brands.csv"
	fragdbPerfumers = "perfumers.csv"
)

// fragdbRequired are the fragrances.csv columns a row cannot do without.
var fragdbRequired = []string{"pid", "name", "brand", "gender"}

// ReadFragDB reads a FragDB dataset: path is its folder or its
// fragrances.csv. The sibling lookup files accords.csv, notes.csv,
// brands.csv and perfumers.csv resolve ids such as a24, n54, b72 and p39 to
// names; when one is missing, the ids it would resolve are left out
// (brands and perfumers usually carry their names inline anyway) and
// Result.Warnings says so. Season and day/night votes become shares on
// 0–100, longevity and sillage votes their mean on 1–5 and 1–4, and the
// concentration is read from the name (see Concentration) and the family
// from the description's boilerplate ("… is a Floral Fruity fragrance
// for women"). A row is
// rejected for a missing pid, name, brand or gender, an unreadable field,
// or an id seen earlier in the file (the first wins).
func (im *Importer) ReadFragDB(path string) (*Result, error) {
	main := path
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		main = filepath.Join(path, fragdbMain)
	}
	lk, warnings, err := loadLookups(filepath.Dir(main))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(main)
	if err != nil {
		return nil, fmt.Errorf("read FragDB: %w", err)
	}
	defer f.Close()
	res, err := im.readFragrances(f, filepath.Base(main), lk)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(warnings, lk.unresolvedWarnings()...)
	return res, nil
}

// newPipeReader returns a csv.Reader for FragDB's pipe-delimited files.
// Quotes are lax because descriptions hold stray ones.
func newPipeReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	cr.Comma = '|'
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return cr
}

// fragdbRow gives access to one fragrances.csv record by column name.
type fragdbRow struct {
	cols map[string]int
	rec  []string
}

func (r fragdbRow) get(col string) string {
	i, ok := r.cols[col]
	if !ok || i >= len(r.rec) {
		return ""
	}
	return strings.TrimSpace(r.rec[i])
}

func (im *Importer) readFragrances(f io.Reader, name string, lk *lookups) (*Result, error) {
	cr := newPipeReader(f)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read %s header: %w", name, err)
	}
	cols, err := fragdbColumns(header)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	res := &Result{}
	firstLine := make(map[int64]int)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		var parseErr *csv.ParseError
		switch {
		case errors.As(err, &parseErr):
			res.reject(name, parseErr.StartLine, parseErr.Err.Error())
			continue
		case err != nil:
			return nil, fmt.Errorf("read %s line %d: %w", name, line, err)
		case len(rec) != len(header):
			res.reject(name, line, fmt.Sprintf("%d fields, header has %d", len(rec), len(header)))
			continue
		}
		p, reason := im.fragdbPerfume(fragdbRow{cols: cols, rec: rec}, lk)
		if first, dup := firstLine[p.ID]; reason == "" && dup {
			reason = fmt.Sprintf("duplicate id %d (first on line %d)", p.ID, first)
		}
		if reason != "" {
			res.reject(name, line, reason)
			continue
		}
		firstLine[p.ID] = line
		res.Perfumes = append(res.Perfumes, p)
	}
	setConcentrations(res.Perfumes)
	return res, nil
}

// fragdbColumns indexes the header by column name and checks that the
// required columns are there.
func fragdbColumns(header []string) (map[string]int, error) {
	cols := make(map[string]int, len(header))
	for i, h := range header {
		cols[strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))] = i
	}
	for _, c := range fragdbRequired {
		if _, ok := cols[c]; !ok {
			return nil, fmt.Errorf("missing column %q", c)
		}
	}
	return cols, nil
}

// setConcentrations reads each perfume's concentration from its name,
// knowing the other names of its brand in the same file.
func setConcentrations(ps []catalog.Perfume) {
	stems := make(map[string]Stems)
	for _, p := range ps {
		if stems[p.Brand] == nil {
			stems[p.Brand] = make(Stems)
		}
		stems[p.Brand].Add(p.Name)
	}
	for i := range ps {
		ps[i].Concentration = Concentration(ps[i].Name, stems[ps[i].Brand])
	}
}

// fragdbPerfume converts and normalises one row, or says why it cannot.
func (im *Importer) fragdbPerfume(row fragdbRow, lk *lookups) (catalog.Perfume, string) {
	var p catalog.Perfume
	var err error
	if p.ID, err = strconv.ParseInt(row.get("pid"), 10, 64); err != nil {
		return p, fmt.Sprintf("pid %q is not a number", row.get("pid"))
	}
	p.Name = row.get("name")
	p.Brand = lk.brandName(row.get("brand"))
	p.Gender = fragdbGender(row.get("gender"))
	if y := row.get("year"); y != "" && y != "0" {
		if p.Year, err = strconv.Atoi(y); err != nil {
			return p, fmt.Sprintf("year %q is not a number", y)
		}
	}
	p.Perfumers = lk.perfumerNames(row.get("perfumers"))
	p.Description = row.get("description")
	if p.Rating, p.RatingCount, err = parseRating(row.get("rating")); err != nil {
		return p, err.Error()
	}
	steps := []func(fragdbRow, *lookups, *catalog.Perfume) error{
		fragdbAccordsInto, fragdbNotesInto, fragdbVotesInto,
	}
	for _, step := range steps {
		if err := step(row, lk, &p); err != nil {
			return p, err.Error()
		}
	}
	// The family is read before normalize writes the boilerplate's
	// family in lower case (tidyBoilerplate).
	p.Family = familyFromDescription(cleanDescription(p.Description))
	if reason := im.normalize(&p); reason != "" {
		return p, reason
	}
	return p, ""
}

// fragdbGender maps gender_for_women, gender_for_men and
// gender_for_women_and_men; anything else is kept for the normaliser to
// report.
func fragdbGender(s string) catalog.Gender {
	switch strings.TrimPrefix(strings.ToLower(s), "gender_for_") {
	case "women":
		return catalog.Feminine
	case "men":
		return catalog.Masculine
	case "women_and_men", "men_and_women", "unisex", "gender_unisex":
		return catalog.Unisex
	}
	return catalog.Gender(s)
}

func fragdbAccordsInto(row fragdbRow, lk *lookups, p *catalog.Perfume) error {
	items, err := parseWeighted(row.get("accords"))
	if err != nil {
		return fmt.Errorf("accords: %w", err)
	}
	for _, it := range items {
		if name := lk.accords.name(it.ID); name != "" {
			p.Accords = append(p.Accords, catalog.AccordStrength{Name: name, Strength: it.Value})
		}
	}
	return nil
}

func fragdbNotesInto(row fragdbRow, lk *lookups, p *catalog.Perfume) error {
	pyr, err := parsePyramid(row.get("notes_pyramid"))
	if err != nil {
		return fmt.Errorf("notes_pyramid: %w", err)
	}
	p.Notes = catalog.NotePyramid{
		Top: lk.notes.names(pyr.Top), Middle: lk.notes.names(pyr.Middle),
		Base: lk.notes.names(pyr.Base), Unplaced: lk.notes.names(pyr.Unplaced),
	}
	return nil
}

func fragdbVotesInto(row fragdbRow, _ *lookups, p *catalog.Perfume) error {
	fields := map[string][]vote{}
	for _, col := range []string{"season", "time_of_day", "longevity", "sillage"} {
		votes, err := parseVotes(row.get(col))
		if err != nil {
			return fmt.Errorf("%s: %w", col, err)
		}
		fields[col] = votes
	}
	s := voteShares(fields["season"], "season_", map[string]string{"autumn": "fall"})
	p.Seasons = catalog.Seasons{Winter: s["winter"], Spring: s["spring"], Summer: s["summer"], Fall: s["fall"]}
	d := voteShares(fields["time_of_day"], "season_", nil)
	p.DayNight = catalog.DayNight{Day: d["day"], Night: d["night"]}
	p.Longevity = meanVote(fields["longevity"], "longevity_", longevityScale)
	p.Sillage = meanVote(fields["sillage"], "sillage_", sillageScale)
	return nil
}

// familyPattern finds the olfactory family in Fragrantica's boilerplate
// first sentence as the source writes it: "Alien by Mugler is a Oriental
// Woody fragrance for women."
var familyPattern = regexp.MustCompile(`\bis an? (\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+){0,2}) fragrance for\b`)

// familyFromDescription returns the family named in a description's
// boilerplate, or "" when there is none.
func familyFromDescription(desc string) string {
	if m := familyPattern.FindStringSubmatch(desc); m != nil {
		return m[1]
	}
	return ""
}
