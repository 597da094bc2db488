package describe

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// For returns the Parser of ix's catalogue, built on first use and kept
// while ix lives: the API, MCP and the site share one per catalogue.
func For(ix *index.Index) *Parser {
	key := weak.Make(ix)
	parsers.mu.Lock()
	defer parsers.mu.Unlock()
	if p, ok := parsers.m[key]; ok {
		return p
	}
	if parsers.m == nil {
		parsers.m = map[weak.Pointer[index.Index]]*Parser{}
	}
	p := New(ix, DefaultTable(), search.DefaultLexicon())
	parsers.m[key] = p
	runtime.AddCleanup(ix, func(k weak.Pointer[index.Index]) {
		parsers.mu.Lock()
		delete(parsers.m, k)
		parsers.mu.Unlock()
	}, key)
	return p
}

// parsers are the Parsers of the catalogues in use, by index; an entry
// goes when its index is collected.
var parsers struct {
	mu sync.Mutex
	m  map[weak.Pointer[index.Index]]*Parser
}

// New builds the Parser of ix's catalogue with table's words and lx's
// brand aliases and filler words. Where one phrase has several meanings,
// the table's word wins over an accord or a note of that name (the
// table says what people mean by it), a scent over a brand named like it
// ("Fresh", "Clean"), and a filler word over a brand.
func New(ix *index.Index, table *Table, lx *search.Lexicon) *Parser {
	b := vocabBuilder{p: &Parser{phrases: map[string]entry{}}, scentOf: map[string]int32{}}
	accords := map[string]string{} // folded → the catalogue's name
	for _, a := range ix.AccordNames() {
		accords[search.Fold(a)] = a
	}
	notes := map[string]string{}
	for _, n := range ix.NoteNames() {
		notes[search.Fold(n)] = n
	}
	family := noteFamilies(notes)
	// The catalogue's accords and notes, an accord and a note of one
	// name being one scent.
	for f, a := range accords {
		b.scent(f, scent{label: a, accords: []string{a}, want: index.Want{Accords: []string{a}}})
	}
	for f, n := range notes {
		i, ok := b.scentOf[f]
		if !ok {
			b.scent(f, scent{label: n, notes: []string{n}, want: index.Want{Notes: family[f]}})
			continue
		}
		s := &b.p.scents[i]
		s.notes, s.want.Notes = []string{n}, family[f]
	}
	// A note's other names: "agarwood" and "oud" of "Agarwood (Oud)".
	for f, n := range notes {
		for _, part := range nameParts(n) {
			if _, ok := b.scentOf[part]; !ok {
				b.scent(part, b.p.scents[b.scentOf[f]])
			}
		}
	}
	// The table's words for scents add to what the catalogue's names say
	// ("fresh" is an accord, and more).
	for phrase, ts := range table.Scents {
		var s scent
		i, known := b.scentOf[phrase]
		if known {
			s = b.p.scents[i]
			s.accords, s.notes = slices.Clone(s.accords), slices.Clone(s.notes)
			s.want = index.Want{Accords: slices.Clone(s.want.Accords), Notes: slices.Clone(s.want.Notes)}
		}
		var named []string
		for _, a := range ts.Accords {
			if name, ok := accords[a]; ok {
				named = append(named, name)
				s.accords = appendNew(s.accords, name)
				s.want.Accords = appendNew(s.want.Accords, name)
			}
		}
		for _, n := range ts.Notes {
			if name, ok := notes[n]; ok {
				named = append(named, name)
				s.notes = appendNew(s.notes, name)
				for _, m := range family[n] {
					s.want.Notes = appendNew(s.want.Notes, m)
				}
			}
		}
		switch {
		case len(named) == 0 && !known:
			continue // names another catalogue's scents
		case len(named) == 1: // an alias: shown as what it names ("tonka": Tonka Bean)
			s.label = named[0]
		case !known:
			s.label = phrase
		}
		b.scent(phrase, s)
	}
	for phrase, v := range table.Gender {
		b.set(phrase, entry{kind: kGender, value: v}, true)
	}
	for phrase, v := range table.Season {
		b.set(phrase, entry{kind: kSeason, value: v}, true)
	}
	for phrase, v := range table.Time {
		b.set(phrase, entry{kind: kTime, value: v}, true)
	}
	for phrase := range table.Negation {
		b.set(phrase, entry{kind: kNegation}, true)
	}
	for phrase := range table.Connector {
		b.set(phrase, entry{kind: kConnector}, true)
	}
	for phrase := range table.Filler {
		b.set(phrase, entry{kind: kFiller}, true)
	}
	for w := range lx.Weak {
		b.set(w, entry{kind: kFiller}, false)
	}
	b.brands(ix.Brands(""), lx)
	return b.p
}

// vocabBuilder fills a Parser.
type vocabBuilder struct {
	p       *Parser
	scentOf map[string]int32
}

// scent makes phrase (and its plural) mean s, replacing what it meant.
func (b *vocabBuilder) scent(phrase string, s scent) {
	i, ok := b.scentOf[phrase]
	if !ok {
		i = int32(len(b.p.scents))
		b.p.scents = append(b.p.scents, s)
		b.scentOf[phrase] = i
	} else {
		b.p.scents[i] = s
	}
	b.set(phrase, entry{kind: kScent, scent: i}, true)
	for _, f := range forms(phrase) {
		if _, taken := b.p.phrases[f]; !taken {
			b.set(f, entry{kind: kScent, scent: i}, false)
		}
	}
}

// set makes phrase mean e: over what it meant when replace is set, else
// only when it meant nothing.
func (b *vocabBuilder) set(phrase string, e entry, replace bool) {
	if phrase == "" {
		return
	}
	if _, taken := b.p.phrases[phrase]; taken && !replace {
		return
	}
	b.p.phrases[phrase] = e
	b.p.longest = max(b.p.longest, strings.Count(phrase, " ")+1)
}

// brands adds the catalogue's brands under their folded names, those
// names without a place or a word such as "parfums" ("Jo Malone London"
// is "jo malone"), and lx's aliases ("ysl"), where no other meaning has
// the phrase. Names of fewer than three letters are left out: in a
// description they are more often something else.
func (b *vocabBuilder) brands(all []index.Count, lx *search.Lexicon) {
	byFolded := map[string]index.Count{}
	for _, c := range all {
		f := search.Fold(c.Name)
		byFolded[f] = c
		for _, short := range append([]string{f}, shortBrand(f)...) {
			if len(short) >= 3 {
				b.set(short, entry{kind: kBrand, value: c.Name, slug: c.Slug}, false)
			}
		}
	}
	for alias, names := range lx.Aliases {
		if c, ok := byFolded[names[0]]; ok && len(alias) >= 2 {
			b.set(alias, entry{kind: kBrand, value: c.Name, slug: c.Slug}, false)
		}
	}
}

// brandWords are words a brand's name carries beside its own: dropped at
// either end, they leave the name people use.
var brandWords = map[string]bool{
	"parfums": true, "parfum": true, "perfumes": true, "perfume": true, "fragrance": true, "fragrances": true,
	"london": true, "paris": true, "milano": true, "new york": true, "maison": true, "les parfums de": true,
	"the": true, "cosmetics": true, "beauty": true,
}

// shortBrand returns f (a folded brand name) without its leading and
// trailing brandWords, when that leaves a name.
func shortBrand(f string) []string {
	words := strings.Fields(f)
	from, to := 0, len(words)
	for from < to-1 && brandWords[words[from]] {
		from++
	}
	for to > from+1 && brandWords[words[to-1]] {
		to--
	}
	if from == 0 && to == len(words) {
		return nil
	}
	return []string{strings.Join(words[from:to], " ")}
}

// noteFamilies maps each folded note name to itself and the notes named
// after it: a note of several words whose last word (or a word in its
// parentheses) is another note belongs to that note's family ("Madagascar
// Vanilla" to Vanilla, "Agarwood (Oud)" to Oud, "Sea Salt" to Salt).
func noteFamilies(notes map[string]string) map[string][]string {
	fam := make(map[string][]string, len(notes))
	for f, n := range notes {
		fam[f] = append(fam[f], n)
	}
	for f, n := range notes {
		words := strings.Fields(f)
		if len(words) < 2 {
			continue
		}
		heads := append([]string{words[len(words)-1]}, nameParts(n)...)
		seen := map[string]bool{f: true}
		for _, h := range heads {
			for _, head := range append([]string{h}, singular(h)...) {
				if _, ok := notes[head]; ok && !seen[head] {
					seen[head] = true
					fam[head] = append(fam[head], n)
				}
			}
		}
	}
	return fam
}

// nameParts returns the folded parts of a name written "Agarwood (Oud)":
// the words before the parentheses and those in them; none when the name
// has no parentheses.
func nameParts(name string) []string {
	before, rest, ok := strings.Cut(name, "(")
	if !ok {
		return nil
	}
	inside, _, _ := strings.Cut(rest, ")")
	var out []string
	for _, s := range []string{before, inside} {
		if f := search.Fold(s); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// forms returns the other number of a phrase's last word: its plural
// ("ambers", "berries", "peaches"), or its singular when it ends in s.
func forms(phrase string) []string {
	stem, last := "", phrase
	if i := strings.LastIndexByte(phrase, ' '); i >= 0 {
		stem, last = phrase[:i+1], phrase[i+1:]
	}
	if len(last) < 3 {
		return nil
	}
	var out []string
	for _, s := range singular(last) {
		out = append(out, stem+s)
	}
	switch {
	case strings.HasSuffix(last, "y") && !strings.ContainsAny(last[len(last)-2:len(last)-1], "aeiou"):
		out = append(out, stem+last[:len(last)-1]+"ies")
	case strings.HasSuffix(last, "s"), strings.HasSuffix(last, "x"), strings.HasSuffix(last, "ch"), strings.HasSuffix(last, "sh"):
		out = append(out, stem+last+"es")
	default:
		out = append(out, stem+last+"s")
	}
	return out
}

// singular returns the singulars a plural word may have.
func singular(w string) []string {
	switch {
	case len(w) < 4 || strings.HasSuffix(w, "ss"):
		return nil
	case strings.HasSuffix(w, "ies"):
		return []string{w[:len(w)-3] + "y"}
	case strings.HasSuffix(w, "es"):
		return []string{w[:len(w)-2], w[:len(w)-1]}
	case strings.HasSuffix(w, "s"):
		return []string{w[:len(w)-1]}
	}
	return nil
}
