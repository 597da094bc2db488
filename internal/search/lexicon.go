package search

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:embed lexicon.txt
var lexiconText string

// Lexicon is the word knowledge of the search: weak words, edition and
// gender words, interchangeable spellings and brand aliases. It is read from
// lexicon.txt (data, not code); every key is folded. Treat it as read-only.
type Lexicon struct {
	// Weak words describe rather than name a perfume ("for", "perfume").
	Weak map[string]bool
	// Editions maps a folded phrase of one to three words to the
	// concentration it names ("edp" → "Eau de Parfum").
	Editions map[string]string
	// Genders maps a folded word to the gender it asks for.
	Genders map[string]string
	// Equivalents maps a folded word to the words that mean the same
	// ("one" → "1"); Variants to other spellings of it ("bleu" → "blue").
	Equivalents map[string][]string
	Variants    map[string][]string
	// Aliases maps a folded alias ("ysl", "paco rabanne") to the folded
	// names of the brands it stands for.
	Aliases map[string][]string
}

// DefaultLexicon returns the lexicon built into the binary. It is parsed
// once; the same value is returned to every caller, who must not change it.
func DefaultLexicon() *Lexicon { return defaultLexicon() }

var defaultLexicon = sync.OnceValue(func() *Lexicon {
	lx, err := ParseLexicon(lexiconText)
	if err != nil {
		panic(fmt.Sprintf("search: built-in lexicon.txt: %v", err)) // a build defect, caught by tests
	}
	return lx
})

// ParseLexicon reads the lexicon format of lexicon.txt.
func ParseLexicon(text string) (*Lexicon, error) {
	lx := &Lexicon{
		Weak: map[string]bool{}, Editions: map[string]string{}, Genders: map[string]string{},
		Equivalents: map[string][]string{}, Variants: map[string][]string{}, Aliases: map[string][]string{},
	}
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
		if err := lx.addLine(section, line); err != nil {
			return nil, fmt.Errorf("lexicon line %d: %w", n+1, err)
		}
	}
	return lx, nil
}

func (lx *Lexicon) addLine(section, line string) error {
	key, value, hasValue := strings.Cut(line, "=")
	key, value = Fold(key), strings.TrimSpace(value)
	switch {
	case section == "weak" && !hasValue:
		for _, w := range strings.Fields(key) {
			lx.Weak[w] = true
		}
	case section == "equivalents" && !hasValue:
		addGroup(lx.Equivalents, strings.Fields(key))
	case section == "variants" && !hasValue:
		addGroup(lx.Variants, strings.Fields(key))
	case section == "edition" && hasValue && key != "":
		lx.Editions[key] = value
	case section == "gender" && hasValue:
		for _, w := range strings.Fields(key) {
			lx.Genders[w] = value
		}
	case section == "aliases" && hasValue && key != "" && Fold(value) != "":
		lx.Aliases[key] = append(lx.Aliases[key], Fold(value))
	default:
		return fmt.Errorf("cannot read %q in section [%s]", line, section)
	}
	return nil
}

// addGroup makes every word of a group point to the others.
func addGroup(m map[string][]string, group []string) {
	for _, w := range group {
		for _, o := range group {
			if o != w {
				m[w] = append(m[w], o)
			}
		}
	}
}

// WithAliases returns a copy of lx that also knows the given aliases
// (alias → brand names, folded or not). lx itself is not changed.
func (lx *Lexicon) WithAliases(extra map[string][]string) *Lexicon {
	if len(extra) == 0 {
		return lx
	}
	cp := *lx
	cp.Aliases = make(map[string][]string, len(lx.Aliases)+len(extra))
	for k, v := range lx.Aliases {
		cp.Aliases[k] = slices.Clip(v) // appends below must not write into lx's arrays
	}
	for k, brands := range extra {
		k = Fold(k)
		for _, b := range brands {
			if k != "" && Fold(b) != "" {
				cp.Aliases[k] = append(cp.Aliases[k], Fold(b))
			}
		}
	}
	return &cp
}
