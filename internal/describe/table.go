package describe

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/search"
)

//go:embed words.txt
var wordsText string

// Table is the project's own word knowledge (words.txt): what people's
// words for scents mean in accords and notes, the phrases of gender,
// season and time, the filler words, the negations and the connectors
// that carry a negation on. Every phrase is folded (search.Fold). Treat
// it as read-only.
type Table struct {
	// Scents maps a phrase to the accords and notes it means, by the
	// catalogue's names (folded).
	Scents map[string]Scent
	// Gender, Season and Time map a phrase to the filter value it means:
	// a catalog.Gender, a season (winter, spring, summer, fall) or a time
	// (day, night).
	Gender, Season, Time map[string]string
	// Filler, Negation and Connector are sets of phrases.
	Filler, Negation, Connector map[string]bool
}

// Scent is what a word for a scent means: a perfume with any of these
// accords or notes meets it.
type Scent struct {
	Accords, Notes []string
}

// DefaultTable returns the table built into the binary (words.txt),
// parsed once; every caller gets the same value and must not change it.
func DefaultTable() *Table { return defaultTable() }

var defaultTable = sync.OnceValue(func() *Table {
	t, err := ParseTable(wordsText)
	if err != nil {
		panic(fmt.Sprintf("describe: built-in words.txt: %v", err)) // a build defect, caught by tests
	}
	return t
})

// The values [gender], [season] and [time] accept.
var (
	genders = []string{"masculine", "feminine", "unisex"}
	seasons = []string{"winter", "spring", "summer", "fall"}
	times   = []string{"day", "night"}
)

// ParseTable reads the format of words.txt (docs/discovery.md): sections
// in brackets, one phrase a line, "phrase = targets" where the section
// takes a value. A phrase may appear in one section only, once.
func ParseTable(text string) (*Table, error) {
	t := &Table{
		Scents: map[string]Scent{}, Gender: map[string]string{}, Season: map[string]string{}, Time: map[string]string{},
		Filler: map[string]bool{}, Negation: map[string]bool{}, Connector: map[string]bool{},
	}
	seen := map[string]string{} // phrase → its section
	section := ""
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		phrase, err := t.addLine(section, line)
		if err != nil {
			return nil, fmt.Errorf("words line %d: %w", n+1, err)
		}
		if s, dup := seen[phrase]; dup {
			return nil, fmt.Errorf("words line %d: %q is already in [%s]", n+1, phrase, s)
		}
		seen[phrase] = section
	}
	return t, nil
}

// addLine adds one line of section to t and returns its folded phrase.
func (t *Table) addLine(section, line string) (string, error) {
	key, value, hasValue := strings.Cut(line, "=")
	phrase := search.Fold(key)
	value = strings.TrimSpace(value)
	if phrase == "" {
		return "", fmt.Errorf("no phrase in %q", line)
	}
	set := map[string]map[string]bool{"filler": t.Filler, "negation": t.Negation, "connector": t.Connector}
	values := map[string]struct {
		m       map[string]string
		allowed []string
	}{"gender": {t.Gender, genders}, "season": {t.Season, seasons}, "time": {t.Time, times}}
	switch {
	case set[section] != nil && !hasValue:
		set[section][phrase] = true
	case values[section].m != nil && hasValue:
		v := values[section]
		if !contains(v.allowed, value) {
			return "", fmt.Errorf("[%s] %q: the value must be one of %s", section, phrase, strings.Join(v.allowed, ", "))
		}
		v.m[phrase] = value
	case section == "scents" && hasValue:
		var sc Scent
		for _, target := range strings.Split(value, ",") {
			kind, name, _ := strings.Cut(strings.TrimSpace(target), " ")
			name = search.Fold(name)
			switch {
			case name == "":
				return "", fmt.Errorf("[scents] %q: a target without a name", phrase)
			case kind == "accord":
				sc.Accords = append(sc.Accords, name)
			case kind == "note":
				sc.Notes = append(sc.Notes, name)
			default:
				return "", fmt.Errorf("[scents] %q: a target is \"accord NAME\" or \"note NAME\", not %q", phrase, target)
			}
		}
		t.Scents[phrase] = sc
	default:
		return "", fmt.Errorf("cannot read %q in section [%s]", line, section)
	}
	return phrase, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
