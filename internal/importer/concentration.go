package importer

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The concentration rules port data/build/concentration.py, which made the
// bundled catalogue's concentration field; keep the two in step. Python's
// \b, \s and \d are Unicode-aware, so they are spelled out here.
const (
	wb    = `(?:^|[^\p{L}\p{N}_])` // a word boundary before
	we    = `(?:$|[^\p{L}\p{N}_])` // a word boundary after
	space = `[\s\p{Z}]`
)

// concentrationPhrases count anywhere in a name; the first match wins.
var concentrationPhrases = []struct {
	re    *regexp.Regexp
	label string
}{
	{regexp.MustCompile(`(?i)` + wb + `extrait` + space + `+de` + space + `+parfum` + we), "Extrait de Parfum"},
	{regexp.MustCompile(`(?i)` + wb + `elixir` + space + `+de` + space + `+parfum` + we), "Elixir"},
	{regexp.MustCompile(`(?i)` + wb + `(?:eau` + space + `+de` + space + `+parfum|edp)` + we), "Eau de Parfum"},
	{regexp.MustCompile(`(?i)` + wb + `(?:eau` + space + `+de` + space + `+toilette|edt)` + we), "Eau de Toilette"},
	{regexp.MustCompile(`(?i)` + wb + `eau` + space + `+de` + space + `+cologne` + we), "Eau de Cologne"},
}

// concentrationTail finds a concentration word at the end of a name,
// optionally followed by "Intense" or a number.
var concentrationTail = regexp.MustCompile(`(?i)^(.*?)[\s\p{Z}\-–—]+(parfum|cologne|elixir|extrait)` +
	`(?:` + space + `+(?:intense|\p{Nd}{1,4}))?` + space + `*$`)

var concentrationWords = map[string]string{
	"parfum": "Parfum", "cologne": "Cologne", "elixir": "Elixir", "extrait": "Extrait de Parfum",
}

// badPrevious are words that make a trailing "Parfum" part of the name
// ("Le Parfum", "Lettre de Cologne") rather than its concentration.
var badPrevious = map[string]bool{
	"le": true, "la": true, "les": true, "mon": true, "ma": true, "un": true, "une": true,
	"the": true, "my": true, "your": true, "ton": true, "son": true, "il": true, "al": true,
	"de": true, "du": true, "du'": true, "of": true, "eau": true, "hair": true, "solid": true,
	"parfum": true, "perfume": true, "a": true, "premier": true, "premiere": true, "première": true,
}

// stripConcentration cuts a concentration phrase and everything after it,
// giving the stem other names of the brand may build on.
var stripConcentration = regexp.MustCompile(`(?i)` + wb +
	`(?:eau de parfum|eau de toilette|eau de cologne|extrait de parfum|edp|edt)` + we + `.*$`)

// Stems is the set of a brand's perfume names (and their stems without a
// concentration phrase), in the folded form of normStem. It decides whether
// "X Elixir" is an Elixir of perfume X or simply a name.
type Stems map[string]bool

// Add records a perfume name of the brand.
func (s Stems) Add(name string) {
	name = strings.Join(strings.Fields(name), " ")
	s[normStem(name)] = true
	if loc := stripConcentration.FindStringIndex(name); loc != nil {
		// The match may start with the boundary character; like Python's
		// \b, keep it in the stem.
		stem := name[:loc[0]]
		if r, size := utf8.DecodeRuneInString(name[loc[0]:]); !isWordRune(r) {
			stem = name[:loc[0]+size]
		}
		if strings.TrimSpace(stem) != "" {
			s[normStem(stem)] = true
		}
	}
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
}

// normStem folds a name for stem comparison: accents removed, lowercase,
// trailing separators dropped, white space folded.
func normStem(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	out := strings.ReplaceAll(strings.ToLower(b.String()), "’", "'")
	out = strings.TrimRightFunc(out, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("-–—:,", r)
	})
	return strings.Join(strings.Fields(out), " ")
}

// Concentration reads a perfume's concentration from its name, or "" when
// the name does not state one. brand holds the stems of the brand's other
// perfumes (nil when unknown: a bare trailing "Elixir" then never counts).
// Rules, first match wins:
//   - anywhere: "Extrait de Parfum"; "Elixir de Parfum" → Elixir;
//     "Eau de Parfum"/"EDP"; "Eau de Toilette"/"EDT"; "Eau de Cologne";
//   - as the last word, optionally followed by "Intense" or a number, and
//     not after an article, preposition, "Parfum" or "Eau": "Parfum",
//     "Cologne", "Extrait" → Extrait de Parfum, and "Elixir" when the rest
//     of the name is a perfume of the same brand.
func Concentration(name string, brand Stems) string {
	for _, ph := range concentrationPhrases {
		if ph.re.MatchString(name) {
			return ph.label
		}
	}
	m := concentrationTail.FindStringSubmatch(strings.TrimSpace(name))
	if m == nil {
		return ""
	}
	stem := strings.TrimSpace(m[1])
	if stem == "" {
		return ""
	}
	words := strings.Fields(stem)
	prev := strings.ReplaceAll(strings.ToLower(words[len(words)-1]), "’", "'")
	if badPrevious[prev] || strings.HasSuffix(prev, "l'") || strings.HasSuffix(prev, "d'") {
		return ""
	}
	word := strings.ToLower(m[2])
	if word == "elixir" && !brand[normStem(stem)] {
		return ""
	}
	return concentrationWords[word]
}
