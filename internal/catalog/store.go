package catalog

import (
	"context"
	"fmt"
)

// ImportResult counts what an import did to the stored catalogue.
type ImportResult struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted,omitempty"`
}

// Change is one entry of the change feed: a perfume added or changed, or
// (Perfume nil) deleted, at change sequence Seq. Sequences grow with every
// change and are the same on every replica of a store.
type Change struct {
	Seq     int64
	ID      int64
	Slug    string   // the perfume's slug (its last, when deleted)
	Perfume *Perfume // nil for a deleted perfume
}

// Store persists the catalogue. The SQLite and PostgreSQL backends meet it;
// the in-memory index is built from EachPerfume at start-up and after
// imports.
type Store interface {
	// Perfumes returns every stored perfume ordered by ID.
	Perfumes(ctx context.Context) ([]Perfume, error)
	// EachPerfume calls fn with every stored perfume ordered by ID, the
	// perfumes Perfumes returns, without holding them all: p, its lists
	// and its strings are valid only until fn returns, and fn must copy
	// what it keeps. The first error fn returns stops the reading and is
	// returned.
	EachPerfume(ctx context.Context, fn func(p *Perfume) error) error
	// ImportPerfumes upserts ps by ID in one transaction: either every row
	// is written or none is. A new perfume's Slug is taken as the preferred
	// slug and made unique with SlugCandidates; an existing perfume keeps
	// its stored slug whatever ps says. progress, when not nil, is called
	// with the number of rows written so far.
	ImportPerfumes(ctx context.Context, ps []Perfume, progress func(done int)) (ImportResult, error)
	// ReplacePerfumes is ImportPerfumes that also deletes, in the same
	// transaction, every stored perfume whose ID is not in ps, leaving a
	// tombstone in the change feed.
	ReplacePerfumes(ctx context.Context, ps []Perfume, progress func(done int)) (ImportResult, error)
	// Changes returns at most limit changes with a sequence above since,
	// oldest first: each perfume added or changed (its latest record) and
	// each deleted one, once. An import bumps a perfume's sequence only
	// when its stored record really changes.
	Changes(ctx context.Context, since int64, limit int) ([]Change, error)
	// CatalogueVersion is a number that changes whenever an import changes
	// the catalogue, so replicas can tell when to reload.
	CatalogueVersion(ctx context.Context) (int64, error)
}

// PickSlug returns the slug of a new perfume whose preferred slug is
// p.Slug: the first of SlugCandidates not in taken, else base-<id>-2,
// -3, ... (base-<id> can only be taken by another perfume whose own name
// ends in that number). The slug chosen is marked taken. Every backend and
// every in-memory load assign slugs with it, so they agree.
func PickSlug(p Perfume, taken map[string]bool) string {
	cands := SlugCandidates(p.Slug, p.Year, p.ID)
	for _, c := range cands {
		if !taken[c] {
			taken[c] = true
			return c
		}
	}
	last := cands[len(cands)-1]
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s-%d", last, n); !taken[c] {
			taken[c] = true
			return c
		}
	}
}

// SlugCandidates lists the slugs to try, in order, for a new perfume whose
// preferred slug is base: base, then base-<year> (when the year is known),
// then base-<id>, which is unique because ids are.
func SlugCandidates(base string, year int, id int64) []string {
	out := []string{base}
	if year > 0 {
		out = append(out, fmt.Sprintf("%s-%d", base, year))
	}
	return append(out, fmt.Sprintf("%s-%d", base, id))
}
