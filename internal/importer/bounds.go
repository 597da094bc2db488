package importer

import (
	"fmt"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The bounds of a row's text, in characters after cleaning, and of its
// lists: a row past one is rejected with the field and its bound as the
// reason. Real rows are far inside them; they keep a hostile or broken row
// from making pages, and bottle images drawn from its name, whose cost
// grows with its text.
const (
	// MaxNameLen bounds a perfume's name and a perfumer's.
	MaxNameLen = 200
	// MaxBrandLen bounds a brand.
	MaxBrandLen = 100
	// MaxLabelLen bounds the short labels: family, concentration, an
	// accord's name.
	MaxLabelLen = 60
	// MaxNoteLen bounds a note's name.
	MaxNoteLen = 80
	// MaxDescriptionLen bounds a description.
	MaxDescriptionLen = 5000
	// MaxAccords bounds a perfume's accords.
	MaxAccords = 50
	// MaxNotesPerLayer bounds each layer of the note pyramid.
	MaxNotesPerLayer = 100
	// MaxPerfumers bounds a perfume's perfumers.
	MaxPerfumers = 20
)

// checkBounds returns why p, cleaned, is past a bound; "" when it is not.
func checkBounds(p *catalog.Perfume) string {
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"name", p.Name, MaxNameLen},
		{"brand", p.Brand, MaxBrandLen},
		{"family", p.Family, MaxLabelLen},
		{"concentration", p.Concentration, MaxLabelLen},
		{"description", p.Description, MaxDescriptionLen},
	} {
		if reason := tooLong(f.name, f.value, f.max); reason != "" {
			return reason
		}
	}
	if len(p.Accords) > MaxAccords {
		return fmt.Sprintf("accords: %d; at most %d", len(p.Accords), MaxAccords)
	}
	for _, a := range p.Accords {
		if reason := tooLong("accord name", a.Name, MaxLabelLen); reason != "" {
			return reason
		}
	}
	for _, l := range []struct {
		name  string
		notes []string
	}{{"top", p.Notes.Top}, {"middle", p.Notes.Middle}, {"base", p.Notes.Base}, {"unplaced", p.Notes.Unplaced}} {
		if len(l.notes) > MaxNotesPerLayer {
			return fmt.Sprintf("%s notes: %d; at most %d", l.name, len(l.notes), MaxNotesPerLayer)
		}
		for _, n := range l.notes {
			if reason := tooLong("note", n, MaxNoteLen); reason != "" {
				return reason
			}
		}
	}
	if len(p.Perfumers) > MaxPerfumers {
		return fmt.Sprintf("perfumers: %d; at most %d", len(p.Perfumers), MaxPerfumers)
	}
	for _, n := range p.Perfumers {
		if reason := tooLong("perfumer", n, MaxNameLen); reason != "" {
			return reason
		}
	}
	return ""
}

// tooLong is the reason a field of more than max characters is refused.
func tooLong(field, value string, max int) string {
	if len(value) <= max { // bytes bound characters from above
		return ""
	}
	if n := utf8.RuneCountInString(value); n > max {
		return fmt.Sprintf("%s is %d characters; at most %d", field, n, max)
	}
	return ""
}

// unsafeRune reports the characters no text field keeps: the C0 controls
// but the white space ones (tab, newline, vertical tab, form feed,
// carriage return, which cleaning folds to one space), DEL, the C1
// controls but NEL (white space too), and the bidi embeddings, overrides
// and isolates, which can make a name read as another.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20:
		return r < '\t' || r > '\r'
	case r >= 0x7f && r <= 0x9f:
		return r != 0x85
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// dropUnsafe is strings.Map's function that drops unsafeRune.
func dropUnsafe(r rune) rune {
	if unsafeRune(r) {
		return -1
	}
	return r
}
