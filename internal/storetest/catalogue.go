// Package storetest is one contract test suite for every storage backend,
// in the spirit of litestream's RunWithReplicaClient: each backend's tests
// call these functions with a constructor of a fresh, empty store, so SQLite
// (always) and PostgreSQL (when available) are held to the same behaviour.
package storetest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// RunCatalogue runs the catalogue contract against stores made by open.
func RunCatalogue(t *testing.T, open func(t *testing.T) catalog.Store) {
	t.Run("EmptyStore", func(t *testing.T) { testEmpty(t, open(t)) })
	t.Run("ImportAddsUpdatesUnchanged", func(t *testing.T) { testImportCounts(t, open(t)) })
	t.Run("SlugsStableAcrossReimports", func(t *testing.T) { testSlugStability(t, open(t)) })
	t.Run("SlugClashes", func(t *testing.T) { testSlugClashes(t, open(t)) })
	t.Run("FailedImportChangesNothing", func(t *testing.T) { testFailedImport(t, open(t)) })
	t.Run("ConcurrentReadsDuringImport", func(t *testing.T) { testConcurrentReads(t, open(t)) })
	t.Run("EachPerfume", func(t *testing.T) { testEachPerfume(t, open(t)) })
	t.Run("Changes", func(t *testing.T) { testChanges(t, open(t)) })
}

// Perfume returns a small valid perfume for tests.
func Perfume(id int64, brand, name string, year int) catalog.Perfume {
	return catalog.Perfume{
		ID: id, Name: name, Brand: brand, BrandSlug: slug(brand), Slug: slug(brand) + "-" + slug(name),
		Year: year, Gender: catalog.Unisex, Rating: 4.1, RatingCount: int(id) * 10,
		Accords: []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "citrus", Strength: 40}},
		Notes:   catalog.NotePyramid{Top: []string{"Bergamot"}, Base: []string{"Cedar"}},
		Seasons: catalog.Seasons{Winter: 25, Spring: 25, Summer: 25, Fall: 25}, DayNight: catalog.DayNight{Day: 50, Night: 50},
	}
}

// slug is a tiny stand-in for search.Slugify, enough for test names.
func slug(s string) string {
	b := []byte{}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+32)
		default:
			if len(b) > 0 && b[len(b)-1] != '-' {
				b = append(b, '-')
			}
		}
	}
	return string(b)
}

func mustImport(t *testing.T, s catalog.Store, ps []catalog.Perfume) catalog.ImportResult {
	t.Helper()
	res, err := s.ImportPerfumes(context.Background(), ps, nil)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

func slugs(t *testing.T, s catalog.Store) map[int64]string {
	t.Helper()
	ps, err := s.Perfumes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[int64]string, len(ps))
	for _, p := range ps {
		out[p.ID] = p.Slug
	}
	return out
}

func testEmpty(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	ps, err := s.Perfumes(ctx)
	if err != nil || len(ps) != 0 {
		t.Fatalf("Perfumes = %d, %v; want none", len(ps), err)
	}
	if v, err := s.CatalogueVersion(ctx); err != nil || v != 0 {
		t.Fatalf("CatalogueVersion = %d, %v; want 0", v, err)
	}
}

func testImportCounts(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	a, b := Perfume(1, "Dior", "Sauvage", 2015), Perfume(2, "Chanel", "No 5", 1921)
	if got := mustImport(t, s, []catalog.Perfume{a, b}); got != (catalog.ImportResult{Added: 2}) {
		t.Fatalf("first import = %+v", got)
	}
	v1, _ := s.CatalogueVersion(ctx)
	b.Rating = 4.5
	c := Perfume(3, "Guerlain", "Shalimar", 1925)
	if got := mustImport(t, s, []catalog.Perfume{a, b, c}); got != (catalog.ImportResult{Added: 1, Updated: 1, Unchanged: 1}) {
		t.Fatalf("second import = %+v", got)
	}
	v2, _ := s.CatalogueVersion(ctx)
	if v2 <= v1 {
		t.Fatalf("version did not move: %d then %d", v1, v2)
	}
	mustImport(t, s, []catalog.Perfume{a})
	if v3, _ := s.CatalogueVersion(ctx); v3 != v2 {
		t.Fatalf("an import that changed nothing moved the version: %d → %d", v2, v3)
	}
	ps, err := s.Perfumes(ctx)
	if err != nil || len(ps) != 3 {
		t.Fatalf("Perfumes = %d, %v", len(ps), err)
	}
	if ps[1].ID != 2 || ps[1].Rating != 4.5 || ps[1].Name != "No 5" || ps[1].Accords[1].Strength != 40 {
		t.Fatalf("perfume 2 round-trip = %+v", ps[1])
	}
}

func testSlugStability(t *testing.T, s catalog.Store) {
	p := Perfume(10, "Dior", "Sauvage", 2015)
	mustImport(t, s, []catalog.Perfume{p})
	p.Name = "Sauvage Renamed"
	p.Slug = "dior-sauvage-renamed"
	mustImport(t, s, []catalog.Perfume{p})
	if got := slugs(t, s)[10]; got != "dior-sauvage" {
		t.Fatalf("slug after rename = %q, want the stored dior-sauvage", got)
	}
}

func testSlugClashes(t *testing.T, s catalog.Store) {
	// Three perfumes wanting the same slug: the second gets -year, the
	// third (same year) gets -id; a fourth without year gets -id too.
	ps := []catalog.Perfume{
		Perfume(1, "Davidoff", "Cool Water", 1988),
		Perfume(2, "Davidoff", "Cool Water", 1996),
		Perfume(3, "Davidoff", "Cool Water", 1996),
		Perfume(4, "Davidoff", "Cool Water", 0),
	}
	mustImport(t, s, ps)
	got := slugs(t, s)
	want := map[int64]string{1: "davidoff-cool-water", 2: "davidoff-cool-water-1996", 3: "davidoff-cool-water-3", 4: "davidoff-cool-water-4"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("slug of %d = %q, want %q", id, got[id], w)
		}
	}
}

func testFailedImport(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	mustImport(t, s, []catalog.Perfume{Perfume(1, "Dior", "Sauvage", 2015)})
	v, _ := s.CatalogueVersion(ctx)
	cctx, cancel := context.WithCancel(ctx)
	calls := 0
	big := make([]catalog.Perfume, 0, 3000)
	for i := int64(2); i < 3002; i++ {
		big = append(big, Perfume(i, "Brand", "Name "+string(rune('a'+i%26)), int(1900+i%100)))
	}
	_, err := s.ImportPerfumes(cctx, big, func(int) {
		calls++
		cancel() // cancel mid-import: the transaction must roll back
	})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import err = %v, want context.Canceled", err)
	}
	if got := slugs(t, s); len(got) != 1 {
		t.Fatalf("after failed import: %d perfumes, want 1", len(got))
	}
	if v2, _ := s.CatalogueVersion(ctx); v2 != v {
		t.Fatalf("failed import moved version %d → %d", v, v2)
	}
}

func testConcurrentReads(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	first := []catalog.Perfume{Perfume(1, "A", "One", 2000), Perfume(2, "A", "Two", 2000)}
	mustImport(t, s, first)
	next := make([]catalog.Perfume, 0, 500)
	for i := int64(1); i <= 500; i++ {
		next = append(next, Perfume(i, "A", "P"+slug(string(rune('a'+i%26)))+string(rune('a'+i/26%26)), 2001))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var bad error
	var mu sync.Mutex
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ps, err := s.Perfumes(ctx)
				if err == nil && len(ps) != 2 && len(ps) != 500 {
					err = errors.New("saw a half-imported catalogue")
				}
				if err != nil {
					mu.Lock()
					bad = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	mustImport(t, s, next)
	close(stop)
	wg.Wait()
	if bad != nil {
		t.Fatal(bad)
	}
}

// testEachPerfume: EachPerfume yields what Perfumes returns, in order, even
// though it decodes every perfume into the same memory (perfumes with more
// and fewer accords and notes follow each other), and the first error of fn
// stops it.
func testEachPerfume(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	if err := s.EachPerfume(ctx, func(*catalog.Perfume) error { return errors.New("called") }); err != nil {
		t.Fatalf("EachPerfume on an empty store: %v", err)
	}
	var in []catalog.Perfume
	for i := range 40 {
		p := Perfume(int64(i+1), "Brand", "Perfume "+string(rune('A'+i%26))+string(rune('a'+i/26)), 2000+i)
		p.Accords = p.Accords[:i%3]
		p.Notes.Middle = []string{"Rose", "Iris", "Jasmine"}[:i%4%3]
		if i%5 == 0 {
			p.Perfumers = []string{"Olivier Polge"}
		}
		p.Description = "Perfume number " + string(rune('A'+i%26))
		in = append(in, p)
	}
	mustImport(t, s, in)
	want, err := s.Perfumes(ctx)
	if err != nil || len(want) != len(in) {
		t.Fatalf("Perfumes = %d, %v", len(want), err)
	}
	var got []catalog.Perfume
	err = s.EachPerfume(ctx, func(p *catalog.Perfume) error {
		got = append(got, deepCopy(*p))
		return nil
	})
	if err != nil {
		t.Fatalf("EachPerfume: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("EachPerfume gave %d perfumes, Perfumes %d", len(got), len(want))
	}
	for i := range want {
		if !samePerfume(got[i], want[i]) {
			t.Fatalf("perfume %d:\n EachPerfume %+v\n Perfumes    %+v", i, got[i], want[i])
		}
	}
	stop := errors.New("enough")
	n := 0
	err = s.EachPerfume(ctx, func(*catalog.Perfume) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("EachPerfume after an error = %v, %d calls; want the error after 3", err, n)
	}
}

// deepCopy copies p's lists, which EachPerfume reuses.
func deepCopy(p catalog.Perfume) catalog.Perfume {
	p.Accords = slices.Clone(p.Accords)
	p.Perfumers = slices.Clone(p.Perfumers)
	n := &p.Notes
	n.Top, n.Middle, n.Base, n.Unplaced = slices.Clone(n.Top), slices.Clone(n.Middle), slices.Clone(n.Base), slices.Clone(n.Unplaced)
	return p
}

// samePerfume compares two perfumes, an empty list equal to a nil one.
func samePerfume(a, b catalog.Perfume) bool {
	return reflect.DeepEqual(Normalized(a), Normalized(b))
}

// Normalized is p with its empty lists nil, as stores and the index give
// perfumes back, for comparisons with reflect.DeepEqual.
func Normalized(p catalog.Perfume) catalog.Perfume {
	if len(p.Accords) == 0 {
		p.Accords = nil
	}
	for _, l := range []*[]string{&p.Notes.Top, &p.Notes.Middle, &p.Notes.Base, &p.Notes.Unplaced, &p.Perfumers} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return p
}
