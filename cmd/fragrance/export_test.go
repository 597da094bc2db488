package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// feedItem is what the test reads of one change of the feed.
type feedItem struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

// feedWalk pages GET /api/perfumes/changes from cursor to the end, in
// pages of limit, and returns the changes and the last nextCursor.
func feedWalk(t *testing.T, h http.Handler, cursor, limit string) ([]feedItem, string) {
	t.Helper()
	var all []feedItem
	for range 1000 {
		rec := servetest.Do(t, h, "GET", "/api/perfumes/changes?limit="+limit+"&since="+cursor)
		if rec.Code != http.StatusOK {
			t.Fatalf("changes since %q = %d: %s", cursor, rec.Code, rec.Body)
		}
		var page struct {
			Data       []feedItem `json:"data"`
			NextCursor string     `json:"nextCursor"`
			HasMore    bool       `json:"hasMore"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Data...)
		cursor = page.NextCursor
		if !page.HasMore {
			return all, cursor
		}
	}
	t.Fatal("the feed never ends")
	return nil, ""
}

// feedServer serves the API over the store at path, its index built from
// the store as serve builds it.
func feedServer(t *testing.T, path string) http.Handler {
	t.Helper()
	db, ix, _ := storeIndex(t, path)
	return servetest.NewServer(t, func(c *servetest.Config) {
		c.Catalogue = index.NewHolder(ix)
		c.Changes = db
	})
}

// TestChangeFeed walks the change feed of a generated catalogue: every
// perfume once from the beginning; after an import that changes three and
// deletes one, exactly those four from the last cursor, also after a
// restart; nothing after the same import again; and export writes the
// same changes and cursor.
func TestChangeFeed(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gen.jsonl")
	db := filepath.Join(dir, "f.db")
	generateFile(t, file, 40, 3)
	runCmd(t, "import", "--db", db, file)

	h := feedServer(t, db)
	all, cursor := feedWalk(t, h, "", "7")
	seen := map[string]bool{}
	for _, it := range all {
		if seen[it.ID] || it.Deleted || it.Name == "" {
			t.Fatalf("walk from the beginning: %+v twice or not a perfume", it)
		}
		seen[it.ID] = true
	}
	if len(seen) != 40 {
		t.Fatalf("walk from the beginning: %d perfumes, want 40", len(seen))
	}
	if more, c := feedWalk(t, h, cursor, "7"); len(more) != 0 || c != cursor {
		t.Fatalf("walk at the end: %d changes, cursor %q; want none, %q", len(more), c, cursor)
	}

	// Change three perfumes' names, drop the fourth line's perfume.
	lines := readLines(t, file)
	var kept []string
	for i, l := range lines {
		switch i {
		case 0, 5, 9:
			l = strings.Replace(l, `"name":"`, `"name":"Changed `, 1)
		case 3:
			continue
		}
		kept = append(kept, l)
	}
	changed := filepath.Join(dir, "changed.jsonl")
	if err := os.WriteFile(changed, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runCmd(t, "import", "--replace", "--db", db, changed)
	if !strings.Contains(out, "0 added, 3 updated, 36 unchanged, 0 rejected, 1 deleted") {
		t.Fatalf("import --replace: %q", out)
	}
	check := func(h http.Handler, what string) string {
		t.Helper()
		cs, next := feedWalk(t, h, cursor, "2")
		var names []string
		deleted := 0
		for _, it := range cs {
			if it.Deleted {
				deleted++
				if it.ID != all[3].ID {
					t.Errorf("%s: tombstone %q, want %q", what, it.ID, all[3].ID)
				}
				continue
			}
			names = append(names, it.Name)
		}
		if len(cs) != 4 || deleted != 1 || len(names) != 3 {
			t.Fatalf("%s: %+v; want three changed perfumes and one tombstone", what, cs)
		}
		for _, n := range names {
			if !strings.HasPrefix(n, "Changed ") {
				t.Errorf("%s: %q is not a changed name", what, n)
			}
		}
		return next
	}
	// The index of h has not reloaded, a new server's (a restart) has:
	// both serve the stored records.
	check(h, "before reload")
	cursor2 := check(feedServer(t, db), "after restart")

	runCmd(t, "import", "--replace", "--db", db, changed)
	if cs, c := feedWalk(t, feedServer(t, db), cursor2, "5"); len(cs) != 0 || c != cursor2 {
		t.Fatalf("the same import again: %d changes; want none", len(cs))
	}

	// export --since writes the same four, in the same order, and the cursor.
	exp := filepath.Join(dir, "export.jsonl")
	if got := strings.TrimSpace(runCmd(t, "export", "--db", db, "--since", cursor, "--out", exp)); got != cursor2 {
		t.Fatalf("export cursor %q, want the feed's %q", got, cursor2)
	}
	feed, _ := feedWalk(t, feedServer(t, db), cursor, "100")
	elines := readLines(t, exp)
	if len(elines) != len(feed) {
		t.Fatalf("export: %d lines, feed %d changes", len(elines), len(feed))
	}
	for i, l := range elines {
		var rec struct {
			Slug    string `json:"slug"`
			Deleted bool   `json:"deleted"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Slug != feed[i].ID || rec.Deleted != feed[i].Deleted {
			t.Errorf("export line %d = %s; feed has %+v", i+1, l, feed[i])
		}
	}
	csvOut := filepath.Join(dir, "export.csv")
	runCmd(t, "export", "--db", db, "--format", "csv", "--out", csvOut)
	if got := readLines(t, csvOut); len(got) != 41 || !slices.Equal(strings.Split(got[0], ","), exportCSVHeader) {
		t.Fatalf("csv export: %d lines, header %q", len(got), got[0])
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
