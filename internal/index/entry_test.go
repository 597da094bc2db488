package index

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// Every perfume of the bundled catalogue reads back from its entry as it
// went in: the pointer-free tables lose nothing.
func TestEntryPerfumeRoundTrip(t *testing.T) {
	ps, ref := realCatalogue(t)
	want := make([]catalog.Perfume, len(ps))
	for i, p := range ps {
		want[i] = storetest.Normalized(p)
	}
	ix := Build(ps, Options{AccordColor: ref.Color})
	if ix.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(want))
	}
	slugs := map[string]string{} // brand spelling → its group's slug
	for i := range want {
		w := want[i]
		if s, ok := slugs[w.Brand]; ok {
			w.BrandSlug = s // one slug per brand spelling: the first holds
		} else {
			if w.BrandSlug == "" {
				w.BrandSlug = slugKey(w.Brand) // made when missing
			}
			slugs[w.Brand] = w.BrandSlug
		}
		got := ix.entries[i].Perfume()
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("perfume %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// Build keeps nothing of what it was given: the store's decoder hands it
// strings cut from large shared blocks, and one string kept by the index
// would keep its whole block, and the catalogue, twice in memory.
func TestBuildKeepsNoReferenceToInput(t *testing.T) {
	ps, _ := realCatalogue(t)
	ps = ps[:2000]
	// Every string of the input is cut from one arena, as the decoder does.
	var size int
	each := func(p *catalog.Perfume, f func(s *string)) {
		for _, s := range []*string{&p.Slug, &p.Name, &p.Brand, &p.BrandSlug, &p.Concentration, &p.Description, &p.Family} {
			f(s)
		}
		f((*string)(&p.Gender))
		f((*string)(&p.PriceTier))
		for i := range p.Accords {
			f(&p.Accords[i].Name)
		}
		for _, l := range [][]string{p.Notes.Top, p.Notes.Middle, p.Notes.Base, p.Notes.Unplaced, p.Perfumers} {
			for i := range l {
				f(&l[i])
			}
		}
	}
	for i := range ps {
		each(&ps[i], func(s *string) { size += len(*s) })
	}
	arena := make([]byte, 0, size)
	for i := range ps {
		each(&ps[i], func(s *string) {
			at := len(arena)
			arena = append(arena, *s...)
			if len(*s) > 0 {
				*s = unsafe.String(&arena[at], len(*s))
			}
		})
	}
	freed := make(chan struct{})
	runtime.AddCleanup(&arena[0], func(ch chan struct{}) { close(ch) }, freed)
	arena = nil

	ix := Build(ps, Options{})
	first := strings.Clone(ix.entries[0].Name())
	ps = nil
	for range 100 {
		runtime.GC()
		select {
		case <-freed:
			if got := ix.entries[0].Name(); got != first {
				t.Fatalf("first name = %q after the input was freed, want %q", got, first)
			}
			return
		default:
			runtime.Gosched()
		}
	}
	t.Fatal("the input's strings are still reachable from the index")
}

// An empty catalogue (a new PostgreSQL database before its first import)
// builds an index that answers everything with nothing.
func TestBuildEmpty(t *testing.T) {
	for _, ps := range [][]catalog.Perfume{nil, {}} {
		ix := Build(ps, Options{})
		if ix.Len() != 0 {
			t.Fatalf("Len = %d", ix.Len())
		}
		if pg := ix.Perfumes(ListQuery{Page: 1, Limit: 20}); len(pg.Entries) != 0 || pg.Total != 0 {
			t.Errorf("list = %+v", pg)
		}
		if pg := ix.Perfumes(ListQuery{Q: "sauvage", Page: 1, Limit: 20}); len(pg.Entries) != 0 || pg.Total != 0 {
			t.Errorf("search = %+v", pg)
		}
		if _, err := ix.Perfume("sauvage"); !errors.Is(err, catalog.ErrNotFound) {
			t.Errorf("Perfume: %v", err)
		}
		if _, _, err := ix.Similar("sauvage", 10); !errors.Is(err, catalog.ErrNotFound) {
			t.Errorf("Similar: %v", err)
		}
		if res, err := ix.Match(MatchQuery{Gender: catalog.Masculine, Page: 1, Limit: 10}); err != nil || res.Total != 0 {
			t.Errorf("Match = %+v, %v", res, err)
		}
		if bs, ns := ix.Brands(""), ix.NoteNames(); len(bs) != 0 || len(ns) != 0 {
			t.Errorf("brands %v, notes %v", bs, ns)
		}
	}
}

// Pos finds every entry of its index at its position, and no entry of
// another index, nor a copy of an entry.
func TestPos(t *testing.T) {
	ix, other := smallIndex(), smallIndex()
	for i := range ix.entries {
		if pos, ok := ix.Pos(&ix.entries[i]); !ok || pos != i {
			t.Fatalf("Pos(entry %d) = %d, %v", i, pos, ok)
		}
		if pos, ok := ix.Pos(&other.entries[i]); ok {
			t.Fatalf("Pos(entry %d of another index) = %d, true", i, pos)
		}
	}
	e := ix.entries[0]
	if _, ok := ix.Pos(&e); ok {
		t.Error("Pos(a copy) found it")
	}
	if _, ok := ix.Pos(nil); ok {
		t.Error("Pos(nil) found it")
	}
}

// Prefetch reads what it may of any entry: one without accords, with an
// empty name or slug, alone in its text block or at its end; an empty
// page reads nothing.
func TestPrefetchEdges(t *testing.T) {
	ix := Build([]catalog.Perfume{
		{ID: 1, Slug: "a", Name: "", Brand: "B"},
		{ID: 2, Slug: "b", Name: "N", Brand: "B", Accords: []catalog.AccordStrength{{Name: "woody", Strength: 100}}},
		{ID: 3, Slug: "c", Name: strings.Repeat("x", textBlockSize+1), Brand: "B"},
	}, Options{})
	var es []*Entry
	for i := range ix.entries {
		es = append(es, &ix.entries[i])
	}
	_ = Prefetch(es)
	if x := Prefetch(nil); x != 0 {
		t.Fatalf("Prefetch(nil) = %d, want 0", x)
	}
}
