package storetest

import (
	"context"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// walk reads the change feed after since in pages of size n and returns
// every change and the last sequence seen (since when there was none).
func walk(t *testing.T, s catalog.Store, since int64, n int) ([]catalog.Change, int64) {
	t.Helper()
	var out []catalog.Change
	for {
		cs, err := s.Changes(context.Background(), since, n)
		if err != nil {
			t.Fatalf("Changes(%d, %d): %v", since, n, err)
		}
		for _, c := range cs {
			if c.Seq <= since {
				t.Fatalf("change %+v not after %d", c, since)
			}
			since = c.Seq
		}
		out = append(out, cs...)
		if len(cs) < n {
			return out, since
		}
	}
}

// testChanges checks the change feed: every perfume once from the start,
// only real changes after a cursor, tombstones for deletions.
func testChanges(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	if cs, err := s.Changes(ctx, 0, 10); err != nil || len(cs) != 0 {
		t.Fatalf("empty store: Changes = %v, %v", cs, err)
	}
	var ps []catalog.Perfume
	for i := int64(1); i <= 7; i++ {
		ps = append(ps, Perfume(i*10, "Brand", "Scent "+string(rune('A'+i)), 2000+int(i)))
	}
	mustImport(t, s, clone(ps))
	all, cursor := walk(t, s, 0, 3)
	if len(all) != 7 {
		t.Fatalf("walk from start: %d changes, want 7", len(all))
	}
	for i, c := range all {
		if c.Perfume == nil || c.ID != ps[i].ID || c.Perfume.ID != c.ID || c.Perfume.Name != ps[i].Name || c.Perfume.Seq != c.Seq {
			t.Fatalf("change %d = %+v, want perfume %d at its sequence", i, c, ps[i].ID)
		}
	}
	checkSeqs(t, s, all)
	// The same file again changes nothing.
	mustImport(t, s, clone(ps))
	if cs, _ := walk(t, s, cursor, 3); len(cs) != 0 {
		t.Fatalf("re-import: %d changes, want 0", len(cs))
	}
	slugs40 := slugs(t, s)
	// Three changed, one gone (id 40), the rest the same.
	next := clone(ps)
	next[0].Rating, next[2].Name, next[6].Year = 3.3, "Renamed", 1999
	next = append(next[:3], next[4:]...)
	res, err := s.ReplacePerfumes(ctx, next, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 3 || res.Deleted != 1 || res.Unchanged != 3 {
		t.Fatalf("replace: %+v, want 3 updated, 1 deleted, 3 unchanged", res)
	}
	cs, cursor2 := walk(t, s, cursor, 2)
	checkSeqs(t, s, cs)
	got := map[int64]bool{}
	for _, c := range cs {
		if got[c.ID] {
			t.Fatalf("perfume %d twice", c.ID)
		}
		got[c.ID] = c.Perfume == nil
		if c.Slug != slugs40[c.ID] {
			t.Fatalf("change %d: slug %q, want %q", c.ID, c.Slug, slugs40[c.ID])
		}
	}
	want := map[int64]bool{10: false, 30: false, 70: false, 40: true}
	if len(got) != len(want) {
		t.Fatalf("changes after replace = %v, want %v", got, want)
	}
	for id, del := range want {
		if d, ok := got[id]; !ok || d != del {
			t.Fatalf("changes after replace = %v, want %v", got, want)
		}
	}
	if ps, _ := s.Perfumes(ctx); len(ps) != 6 {
		t.Fatalf("%d perfumes after replace, want 6", len(ps))
	}
	// Replacing with the same file again changes nothing either.
	if _, err := s.ReplacePerfumes(ctx, clone(next), nil); err != nil {
		t.Fatal(err)
	}
	if cs, _ := walk(t, s, cursor2, 5); len(cs) != 0 {
		t.Fatalf("same replace again: %d changes, want 0", len(cs))
	}
	// The deleted perfume comes back: once, as a perfume, from the start.
	mustImport(t, s, []catalog.Perfume{ps[3]})
	all, _ = walk(t, s, 0, 4)
	seen := map[int64]bool{}
	for _, c := range all {
		if seen[c.ID] || c.Perfume == nil {
			t.Fatalf("walk after return: %+v", all)
		}
		seen[c.ID] = true
	}
	if len(seen) != 7 {
		t.Fatalf("walk after return: %d perfumes, want 7", len(seen))
	}
}

// checkSeqs: the perfumes Perfumes and EachPerfume read carry the
// sequence of their last change in cs (the change feed's), so a reader of
// the feed can tell whether it holds a perfume's latest record.
func checkSeqs(t *testing.T, s catalog.Store, cs []catalog.Change) {
	t.Helper()
	want := map[int64]int64{}
	for _, c := range cs {
		if c.Perfume != nil {
			want[c.ID] = c.Seq
		}
	}
	ps, err := s.Perfumes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if seq, ok := want[p.ID]; ok && p.Seq != seq {
			t.Errorf("Perfumes: perfume %d at sequence %d, its change at %d", p.ID, p.Seq, seq)
		}
	}
	err = s.EachPerfume(context.Background(), func(p *catalog.Perfume) error {
		if seq, ok := want[p.ID]; ok && p.Seq != seq {
			t.Errorf("EachPerfume: perfume %d at sequence %d, its change at %d", p.ID, p.Seq, seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func clone(ps []catalog.Perfume) []catalog.Perfume { return append([]catalog.Perfume(nil), ps...) }
