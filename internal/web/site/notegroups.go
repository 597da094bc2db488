package site

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/fragrance-data/fragrance/internal/search"
)

// notegroups.txt is the table that groups the notes list: which words
// put a note in which group (its own comment says how it is read).
//
//go:embed notegroups.txt
var noteGroupsTable string

// noteGroup is a group of the notes list; its phrases are folded.
type noteGroup struct {
	ID, Name string
}

// otherNotes is the group of the notes no phrase finds.
var otherNotes = noteGroup{ID: "other", Name: "Other notes"}

// noteGrouper puts a note in its group by the phrases of the table.
type noteGrouper struct {
	groups []noteGroup
	// phrase is the group (an index into groups) of each folded phrase.
	phrase  map[string]int
	longest int // the most words of a phrase
}

// parseNoteGroups reads the table.
func parseNoteGroups(table string) (*noteGrouper, error) {
	g := &noteGrouper{phrase: map[string]int{}}
	for n, line := range strings.Split(table, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "["):
			id, name, ok := strings.Cut(strings.TrimPrefix(line, "["), "] ")
			if !ok || id == "" || strings.TrimSpace(name) == "" || id == otherNotes.ID {
				return nil, fmt.Errorf("site: notegroups.txt:%d: want \"[id] Name\"", n+1)
			}
			g.groups = append(g.groups, noteGroup{ID: id, Name: strings.TrimSpace(name)})
			continue
		}
		if len(g.groups) == 0 {
			return nil, fmt.Errorf("site: notegroups.txt:%d: a phrase before any group", n+1)
		}
		for _, p := range strings.Split(line, ",") {
			p = search.Fold(p)
			if p == "" {
				continue
			}
			if at, dup := g.phrase[p]; dup {
				return nil, fmt.Errorf("site: notegroups.txt:%d: %q is in %s already", n+1, p, g.groups[at].ID)
			}
			g.phrase[p] = len(g.groups) - 1
			g.longest = max(g.longest, strings.Count(p, " ")+1)
		}
	}
	return g, nil
}

// group is the group of a note: that of the longest phrase of the table
// found in its name, the first group of the table between phrases as
// long; otherNotes when none is found.
func (g *noteGrouper) group(note string) noteGroup {
	words := strings.Fields(search.Fold(note))
	best, bestLen := -1, 0
	for i := range words {
		for n := min(g.longest, len(words)-i); n > bestLen-1 && n > 0; n-- {
			at, ok := g.lookup(words[i : i+n])
			if ok && (n > bestLen || at < best) {
				best, bestLen = at, n
			}
		}
	}
	if best < 0 {
		return otherNotes
	}
	return g.groups[best]
}

// lookup finds the phrase of words, its last word also as the plural of
// the table's ("berries" for "berry", "musks" for "musk").
func (g *noteGrouper) lookup(words []string) (int, bool) {
	p := strings.Join(words, " ")
	if at, ok := g.phrase[p]; ok {
		return at, true
	}
	head, last := p[:len(p)-len(words[len(words)-1])], words[len(words)-1]
	for _, single := range singulars(last) {
		if at, ok := g.phrase[head+single]; ok {
			return at, true
		}
	}
	return 0, false
}

// singulars are what a plural word may be the plural of.
func singulars(w string) []string {
	var out []string
	if s, ok := strings.CutSuffix(w, "ies"); ok && len(s) > 1 {
		out = append(out, s+"y")
	}
	if s, ok := strings.CutSuffix(w, "es"); ok && len(s) > 1 {
		out = append(out, s)
	}
	if s, ok := strings.CutSuffix(w, "s"); ok && len(s) > 1 {
		out = append(out, s)
	}
	return out
}
