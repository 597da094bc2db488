package api_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestPerfumesListBytesUnchanged pins, byte for byte, the answers of the
// list calls without browse parameters (q, brand, page, limit and the
// parameters the list ignores): the browse parameters change nothing of a
// call that does not send them.
func TestPerfumesListBytesUnchanged(t *testing.T) {
	h := newServer(t, nil)
	for name, target := range map[string]string{
		"list_default":       "/api/perfumes",
		"list_page":          "/api/perfumes?page=3&limit=7",
		"list_brand":         "/api/perfumes?brand=chanel&limit=5",
		"list_brand_unknown": "/api/perfumes?brand=no-such-brand",
		"list_search":        "/api/perfumes?q=rose&limit=5",
		"list_search_brand":  "/api/perfumes?q=rose&brand=guerlain&page=2&limit=4",
		"list_ignored":       "/api/perfumes?limit=3&colour=blue",
		"list_past_end":      "/api/perfumes?page=100000&limit=100",
	} {
		t.Run(name, func(t *testing.T) {
			rec := do(t, h, "GET", target)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d\n%s", target, rec.Code, rec.Body)
			}
			path := filepath.Join("testdata", "bytes", name+".json")
			if *update {
				if err := os.WriteFile(path, rec.Body.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(rec.Body.Bytes(), want) {
				t.Errorf("GET %s answers other bytes than %s:\n got %.400s\nwant %.400s", target, path, rec.Body, want)
			}
		})
	}
}
