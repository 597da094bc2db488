package importer

import (
	"fmt"
	"hash/fnv"
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Bounds of the values a row may carry; anything outside is a broken row.
// Years are wide on purpose: the catalogue has a perfume from 1533.
const (
	minYear = 1000
	maxYear = 2100
)

// normalize validates p and brings it to the stored shape shared by every
// reader: trimmed text, clean description, 0–100 scales with at most one
// decimal, sorted accords, slugs and the price tier. It returns a reason
// when the row cannot be used.
func (im *Importer) normalize(p *catalog.Perfume) string {
	p.Name = cleanText(p.Name)
	p.Brand = cleanText(p.Brand)
	p.Family = familySpelling(cleanText(p.Family))
	p.Concentration = cleanText(p.Concentration)
	switch {
	case p.ID <= 0:
		return "missing or non-positive id"
	case p.Name == "":
		return "missing name"
	case p.Brand == "":
		return "missing brand"
	case p.Gender == "":
		return "missing gender"
	case !p.Gender.Valid():
		return fmt.Sprintf("unknown gender %q", p.Gender)
	}
	if reason := checkNumbers(p); reason != "" {
		return reason
	}
	if reason := normalizeShares(p); reason != "" {
		return reason
	}
	if reason := normalizeAccords(p); reason != "" {
		return reason
	}
	p.Notes = catalog.NotePyramid{
		Top: cleanList(p.Notes.Top), Middle: cleanList(p.Notes.Middle),
		Base: cleanList(p.Notes.Base), Unplaced: cleanList(p.Notes.Unplaced),
	}
	if p.Perfumers != nil {
		p.Perfumers = cleanList(p.Perfumers)
	}
	p.Description = tidyBoilerplate(cleanDescription(p.Description))
	if p.Description == "" {
		p.Description = describe(p)
	}
	if reason := checkBounds(p); reason != "" {
		return reason
	}
	p.BrandSlug = brandSlug(p.Brand)
	p.Slug = preferredSlug(p)
	p.PriceTier = im.tier(p.Brand)
	return ""
}

// checkNumbers rejects out-of-range scalar values. Zero means unknown for
// year, rating, longevity and sillage, so zero always passes.
func checkNumbers(p *catalog.Perfume) string {
	switch {
	case p.Year != 0 && (p.Year < minYear || p.Year > maxYear):
		return fmt.Sprintf("year %d out of range %d–%d", p.Year, minYear, maxYear)
	case !inRange(p.Rating, 1, 5):
		return fmt.Sprintf("rating %v out of range 1–5", p.Rating)
	case p.RatingCount < 0:
		return fmt.Sprintf("negative ratingCount %d", p.RatingCount)
	case !inRange(p.Longevity, 1, 5):
		return fmt.Sprintf("longevity %v out of range 1–5", p.Longevity)
	case !inRange(p.Sillage, 1, 4):
		return fmt.Sprintf("sillage %v out of range 1–4", p.Sillage)
	}
	return ""
}

// inRange accepts 0 (unknown) or a finite value in [lo, hi].
func inRange(v, lo, hi float64) bool {
	return v == 0 || (v >= lo && v <= hi)
}

// normalizeShares brings seasons and day/night to 0–100. A group whose
// values are all at most 1 is read as fractions of 1 (the JSON Lines
// format) and multiplied by 100; a real percentage split sums to about 100,
// so some value is above 1 and the two cannot be confused.
func normalizeShares(p *catalog.Perfume) string {
	s := []*float64{&p.Seasons.Winter, &p.Seasons.Spring, &p.Seasons.Summer, &p.Seasons.Fall}
	if reason := scaleShares("seasons", s); reason != "" {
		return reason
	}
	return scaleShares("dayNight", []*float64{&p.DayNight.Day, &p.DayNight.Night})
}

func scaleShares(group string, vals []*float64) string {
	factor := 100.0
	for _, v := range vals {
		if math.IsNaN(*v) || *v < 0 {
			return fmt.Sprintf("%s: negative value %v", group, *v)
		}
		if *v > 1 {
			factor = 1
		}
	}
	for _, v := range vals {
		*v = round1(*v * factor)
		if *v > 100 {
			return fmt.Sprintf("%s: value %v above 100", group, *v)
		}
	}
	return ""
}

// normalizeAccords checks strengths, drops nameless and repeated accords
// and sorts by strength, strongest first (ties keep source order).
func normalizeAccords(p *catalog.Perfume) string {
	out := p.Accords[:0]
	seen := make(map[string]bool, len(p.Accords))
	for _, a := range p.Accords {
		a.Name = cleanText(a.Name)
		if math.IsNaN(a.Strength) || a.Strength < 0 || a.Strength > 100 {
			return fmt.Sprintf("accord %q: strength %v out of range 0–100", a.Name, a.Strength)
		}
		if a.Name == "" || seen[a.Name] {
			continue
		}
		seen[a.Name] = true
		a.Strength = round1(a.Strength)
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Strength > out[j].Strength })
	if out == nil {
		out = []catalog.AccordStrength{}
	}
	p.Accords = out
	return ""
}

// brandSlug is the brand's slug; a brand whose name has no ASCII letters
// or digits (a few Cyrillic and Chinese houses) gets "brand-" and a stable
// hash of its folded name, so it can still be filtered on and linked to.
func brandSlug(brand string) string {
	if s := search.Slugify(brand); s != "" {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(search.Fold(brand)))
	return fmt.Sprintf("brand-%08x", h.Sum32())
}

// preferredSlug is <brand-slug>-<name-slug>, with the numeric id standing
// in for a name that has no ASCII letters or digits. A brand without any
// (a few Cyrillic and Chinese houses) gives <name-slug>-<id>, so that the
// name alone ("edt", "84") does not pose as a whole slug.
func preferredSlug(p *catalog.Perfume) string {
	id := strconv.FormatInt(p.ID, 10)
	name := search.Slugify(p.Name)
	switch {
	case name == "":
		name = id
	case p.BrandSlug == "":
		name += "-" + id
	}
	if p.BrandSlug == "" {
		return name
	}
	return p.BrandSlug + "-" + name
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// cleanText drops the characters no text keeps (unsafeRune: controls,
// bidi overrides), trims s and folds every run of white space (including
// non-breaking spaces, tabs and newlines) to one space.
func cleanText(s string) string {
	if !needsClean(s) {
		return s
	}
	return strings.Join(strings.FieldsFunc(strings.Map(dropUnsafe, s), unicode.IsSpace), " ")
}

// needsClean is the fast path of cleanText: most fields are already clean.
func needsClean(s string) bool {
	prevSpace := true
	for _, r := range s {
		if unsafeRune(r) {
			return true
		}
		sp := unicode.IsSpace(r)
		if sp && (prevSpace || r != ' ') {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}

// cleanList trims every item and drops empty and repeated ones.
func cleanList(items []string) []string {
	if len(items) == 0 {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		// Lists are short (a pyramid layer has a dozen notes at most), so
		// a linear scan beats building a set.
		if it = cleanText(it); it != "" && !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// cleanDescription turns a description that may hold HTML into plain
// text: block tags become paragraph breaks, other tags are dropped,
// entities are decoded, and white space is folded within each paragraph.
// Paragraphs are joined by a blank line.
func cleanDescription(s string) string {
	if s == "" {
		return ""
	}
	text := stripTags(s)
	if strings.IndexByte(text, '&') >= 0 {
		text = html.UnescapeString(text)
	}
	var paras []string
	for _, para := range strings.Split(text, "\n\n") {
		if para = cleanText(para); para != "" {
			paras = append(paras, para)
		}
	}
	return strings.Join(paras, "\n\n")
}
