package site

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// catalogueLists are the list pages' views of one catalogue, made once
// when it is first served (folding every name for each page would cost
// milliseconds).
type catalogueLists struct {
	// brandLetters are the brands of each letter ("a" … "z", and
	// otherLetter for the rest), by name.
	brandLetters map[string][]index.Count
	// notes are every note, most used first, with their folded names
	// (for the filter); noteGroups the notes of each group of the table,
	// most used first, in the table's order and otherNotes last.
	notes      []foldedCount
	noteGroups []groupedNotes
	// accords are the accords of at least minAccordUses perfumes;
	// rareAccords counts the others.
	accords     []index.Count
	rareAccords int
}

type foldedCount struct {
	index.Count
	words []string
}

type groupedNotes struct {
	noteGroup
	notes []index.Count
}

// otherLetter is the letter of the brands whose name starts with no
// letter from a to z (a digit, another script).
const otherLetter = "other"

// listsCache keeps the catalogueLists of the catalogue being served.
type listsCache struct {
	mu    sync.Mutex
	ix    *index.Index
	lists *catalogueLists
}

// groups is the notes' grouping table, read once.
var groups = sync.OnceValues(func() (*noteGrouper, error) { return parseNoteGroups(noteGroupsTable) })

// of is the catalogueLists of ix, made on its first call.
func (c *listsCache) of(ix *index.Index) *catalogueLists {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix != ix {
		c.ix, c.lists = ix, makeLists(ix)
	}
	return c.lists
}

func makeLists(ix *index.Index) *catalogueLists {
	l := &catalogueLists{brandLetters: map[string][]index.Count{}}
	brands := ix.Brands("")
	folded := make(map[string]string, len(brands))
	for _, b := range brands {
		f := search.Fold(b.Name)
		folded[b.Name] = f
		letter := otherLetter
		if f != "" && f[0] >= 'a' && f[0] <= 'z' {
			letter = f[:1]
		}
		l.brandLetters[letter] = append(l.brandLetters[letter], b)
	}
	for _, bs := range l.brandLetters {
		slices.SortStableFunc(bs, func(a, b index.Count) int {
			return cmp.Or(cmp.Compare(folded[a.Name], folded[b.Name]), cmp.Compare(a.Name, b.Name))
		})
	}
	notes, _ := ix.Notes(0)
	g, _ := groups() // New refused to start with a table it could not read
	byGroup := map[string][]index.Count{}
	for _, n := range notes {
		l.notes = append(l.notes, foldedCount{n, strings.Fields(search.Fold(n.Name))})
		id := g.group(n.Name).ID
		byGroup[id] = append(byGroup[id], n)
	}
	for _, ng := range append(slices.Clip(g.groups), otherNotes) {
		if ns := byGroup[ng.ID]; len(ns) > 0 {
			l.noteGroups = append(l.noteGroups, groupedNotes{ng, ns})
		}
	}
	accords, _ := ix.Accords("", 0)
	for _, a := range accords {
		if a.Count >= minAccordUses {
			l.accords = append(l.accords, a)
		} else {
			l.rareAccords++
		}
	}
	return l
}

// noteGroup finds a group of the notes by its id.
func (l *catalogueLists) noteGroup(id string) (groupedNotes, bool) {
	for _, g := range l.noteGroups {
		if g.ID == id {
			return g, true
		}
	}
	return groupedNotes{}, false
}

// letterLinks is the A–Z index of the brands, current the letter shown.
func (l *catalogueLists) letterLinks(current string) []letterLink {
	var out []letterLink
	for c := 'a'; c <= 'z'; c++ {
		out = append(out, l.letterLink(string(c), current))
	}
	return append(out, l.letterLink(otherLetter, current))
}

func (l *catalogueLists) letterLink(letter, current string) letterLink {
	return letterLink{Label: letterLabel(letter), URL: "/brands?letter=" + letter, Current: letter == current,
		Empty: len(l.brandLetters[letter]) == 0}
}

// letterLabel is how the index writes a letter: "D", "0–9 …" for the
// others.
func letterLabel(letter string) string {
	if letter == otherLetter {
		return "0–9 …"
	}
	return strings.ToUpper(letter)
}

// filterNames are the names of ns that match every word of q: each word
// of q starts a word of the name ("pep" finds Pink Pepper, "sandal"
// Sandalwood), in the order of ns.
func filterNames(ns []foldedCount, q string) []index.Count {
	want := strings.Fields(search.Fold(q))
	out := []index.Count{}
	if len(want) == 0 {
		return out
	}
	for _, n := range ns {
		if every(want, func(w string) bool {
			return slices.ContainsFunc(n.words, func(nw string) bool { return strings.HasPrefix(nw, w) })
		}) {
			out = append(out, n.Count)
		}
	}
	return out
}

func every[T any](xs []T, ok func(T) bool) bool {
	for _, x := range xs {
		if !ok(x) {
			return false
		}
	}
	return true
}
