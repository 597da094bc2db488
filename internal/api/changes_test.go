package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// changePage is a change feed answer, each change kept as sent.
type changePage struct {
	Data       []json.RawMessage `json:"data"`
	NextCursor string            `json:"nextCursor"`
	HasMore    bool              `json:"hasMore"`
}

func getChanges(t *testing.T, h http.Handler, query string) changePage {
	t.Helper()
	rec := do(t, h, "GET", "/api/perfumes/changes?"+query)
	if rec.Code != http.StatusOK {
		t.Fatalf("changes?%s = %d: %s", query, rec.Code, rec.Body)
	}
	var p changePage
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("changes?%s: %v", query, err)
	}
	return p
}

// TestChangeFeedDetailsAreTheDetails: the pages, written a chunk at a time
// (two pages of 150 are some 1 MB each), are whole JSON, and each perfume
// in them is the detail endpoint's answer, byte for byte.
func TestChangeFeedDetailsAreTheDetails(t *testing.T) {
	h := newServer(t, nil)
	cursor, seen := "", map[string]bool{}
	for page := range 2 {
		p := getChanges(t, h, "limit=150&since="+cursor)
		if len(p.Data) != 150 || !p.HasMore {
			t.Fatalf("page %d: %d changes, hasMore %v", page, len(p.Data), p.HasMore)
		}
		for i, raw := range p.Data {
			var id struct{ ID string }
			if err := json.Unmarshal(raw, &id); err != nil {
				t.Fatal(err)
			}
			if seen[id.ID] {
				t.Fatalf("%s twice", id.ID)
			}
			seen[id.ID] = true
			if i%25 != 0 {
				continue
			}
			rec := do(t, h, "GET", "/api/perfumes/"+id.ID)
			if want := rec.Body.Bytes(); string(want[:len(want)-1]) != string(raw) {
				t.Fatalf("change %s differs from its detail:\n%s\n%s", id.ID, raw, want)
			}
		}
		cursor = p.NextCursor
	}
}

// feedDetail is what the tests read of a change.
type feedDetail struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Deleted         bool              `json:"deleted"`
	SimilarPerfumes []json.RawMessage `json:"similarPerfumes"`
	Popularity      struct {
		Rank int `json:"rank"`
	} `json:"popularity"`
}

// fixedFeed is a change feed of the given changes, whatever the cursor.
type fixedFeed []catalog.Change

func (f fixedFeed) Changes(_ context.Context, since int64, limit int) ([]catalog.Change, error) {
	return f[:min(limit, len(f))], nil
}

// TestChangeFeedServesTheStoredRecord: a record the served index does not
// hold (changed since it loaded, or new) is served as stored, with the
// served catalogue's similar perfumes and popularity where it knows the
// perfume; a tombstone is the slug and deleted.
func TestChangeFeedServesTheStoredRecord(t *testing.T) {
	ix := servetest.Catalogue(t).Load()
	e, err := ix.Perfume("dior-sauvage")
	if err != nil {
		t.Fatal(err)
	}
	changed := catalog.Perfume{ID: e.ID, Slug: e.Slug(), Name: "Sauvage Renamed", Brand: e.Brand(),
		BrandSlug: e.BrandSlug(), Gender: e.Gender(), Seq: e.Seq + 1000,
		Accords: []catalog.AccordStrength{{Name: "woody", Strength: 100}}}
	added := catalog.Perfume{ID: 99_000_001, Slug: "new-brand-new-scent", Name: "New Scent", Brand: "New Brand",
		BrandSlug: "new-brand", Gender: catalog.Unisex, Seq: e.Seq + 1001}
	feed := fixedFeed{
		{Seq: changed.Seq, ID: changed.ID, Slug: changed.Slug, Perfume: &changed},
		{Seq: added.Seq, ID: added.ID, Slug: added.Slug, Perfume: &added},
		{Seq: added.Seq + 1, ID: 99_000_002, Slug: "gone-perfume"},
	}
	h := newServer(t, func(c *newConfig) { c.Changes = feed })
	p := getChanges(t, h, "limit=3")
	if len(p.Data) != 3 || p.HasMore || p.NextCursor != catalog.FormatCursor(added.Seq+1) {
		t.Fatalf("%d changes, hasMore %v, cursor %q", len(p.Data), p.HasMore, p.NextCursor)
	}
	var got []feedDetail
	for _, raw := range p.Data {
		var d feedDetail
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if g := got[0]; g.Name != "Sauvage Renamed" || len(g.SimilarPerfumes) != 5 || g.Popularity.Rank != e.Popularity.Rank {
		t.Errorf("changed perfume: %+v; want the stored name, five similar, rank %d", g, e.Popularity.Rank)
	}
	if g := got[1]; g.Name != "New Scent" || g.SimilarPerfumes == nil || len(g.SimilarPerfumes) != 0 {
		t.Errorf("new perfume: %+v; want the stored name and no similar perfumes", g)
	}
	if g := got[2]; g.ID != "gone-perfume" || !g.Deleted {
		t.Errorf("tombstone: %+v", g)
	}
}
