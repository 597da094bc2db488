package index

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/search"
)

// namer groups the spellings of names that are one thing (brands differing
// only in case, "Vanilla"/"vanilla") under one id, interns the strings so
// the catalogue keeps one copy of each, and elects a display spelling.
type namer struct {
	key     func(string) string
	spell   map[string]uint32 // exact spelling → spelling number
	groupOf map[string]uint32 // key → group id
	str     []string          // per spelling: the interned string
	grp     []uint32          // per spelling: its group
	uses    []int             // per spelling: how often it was seen
	keys    []string          // per group: its key
}

func newNamer(key func(string) string) *namer {
	return &namer{key: key, spell: map[string]uint32{}, groupOf: map[string]uint32{}}
}

// spelling returns the spelling number of s and its group, counting one
// use. k is the group key (empty: computed from s); the first key seen for
// a spelling holds. Spellings and keys are copied, so the namer holds no
// reference into the perfumes it was given.
func (n *namer) spelling(s, k string) (sp, group uint32) {
	sp, ok := n.spell[s]
	if !ok {
		s = strings.Clone(s)
		if k == "" {
			k = n.key(s)
		}
		g, seen := n.groupOf[k]
		if !seen {
			g = uint32(len(n.keys))
			k = strings.Clone(k)
			n.groupOf[k] = g
			n.keys = append(n.keys, k)
		}
		sp = uint32(len(n.str))
		n.spell[s] = sp
		n.str = append(n.str, s)
		n.grp = append(n.grp, g)
		n.uses = append(n.uses, 0)
	}
	n.uses[sp]++
	return sp, n.grp[sp]
}

// groups is the number of groups.
func (n *namer) groups() int { return len(n.keys) }

// names returns each group's display name: its most used spelling, the
// smaller string on a tie so builds are reproducible.
func (n *namer) names() []string {
	best := make([]int, len(n.keys))
	for i := range best {
		best[i] = -1
	}
	for sp, g := range n.grp {
		b := best[g]
		if b < 0 || n.uses[sp] > n.uses[b] || (n.uses[sp] == n.uses[b] && n.str[sp] < n.str[b]) {
			best[g] = sp
		}
	}
	out := make([]string, len(best))
	for g, sp := range best {
		out[g] = n.str[sp]
	}
	return out
}

// slugKey is the group key of brands and perfumers: the contract's slug,
// or the folded name when the name has no ASCII letters to slug.
func slugKey(s string) string {
	if k := search.Slugify(s); k != "" {
		return k
	}
	return search.Fold(s)
}

// makeGroups turns per-document group ids into groups with their
// documents in popularity order and sorts them. It returns the groups and
// the new position of each old group id.
func makeGroups(names, slugs []string, docGroups func(doc uint32, yield func(g uint32)), order []uint32) ([]group, []uint32) {
	gs := make([]group, len(names))
	for i := range gs {
		gs[i].Name = names[i]
		if slugs != nil {
			gs[i].Slug = slugs[i]
		}
	}
	for _, doc := range order {
		docGroups(doc, func(g uint32) {
			if n := len(gs[g].docs); n == 0 || gs[g].docs[n-1] != doc {
				gs[g].docs = append(gs[g].docs, doc)
			}
		})
	}
	ids := make([]int, len(gs))
	for i := range gs {
		gs[i].Count.Count = len(gs[i].docs)
		ids[i] = i
	}
	// Sort by a folded key computed once: folding inside the comparator
	// would fold each name log n times.
	folded := make([]string, len(gs))
	for i := range gs {
		folded[i] = search.Fold(gs[i].Name)
	}
	slices.SortStableFunc(ids, func(a, b int) int {
		return cmp.Or(cmp.Compare(gs[b].Count.Count, gs[a].Count.Count),
			cmp.Compare(folded[a], folded[b]), cmp.Compare(gs[a].Name, gs[b].Name))
	})
	out := make([]group, len(gs))
	pos := make([]uint32, len(gs))
	for newPos, old := range ids {
		out[newPos] = gs[old]
		pos[old] = uint32(newPos)
	}
	return out, pos
}
