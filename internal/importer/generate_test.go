package importer

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// testGenerate runs from TestBundledCatalogue with the real catalogue as
// the sample. Sizes stay small so the race detector run stays quick; the
// benchmarks generate 100,000 rows.
func testGenerate(t *testing.T, sample []catalog.Perfume) {
	const n = 3000
	var a, b, c bytes.Buffer
	for _, g := range []struct {
		buf  *bytes.Buffer
		seed int64
	}{{&a, 1}, {&b, 1}, {&c, 2}} {
		if err := Generate(g.buf, n, g.seed, sample); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed gave different output")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds gave the same output")
	}
	if lines := bytes.Count(a.Bytes(), []byte("\n")); lines != n {
		t.Errorf("%d lines, want %d", lines, n)
	}
	res := readAll(t, a.Bytes(), New(nil))
	if len(res.Rejected) != 0 || len(res.Perfumes) != n {
		t.Fatalf("read back %d perfumes, rejected %v", len(res.Perfumes), res.Rejected[:min(3, len(res.Rejected))])
	}
	// Several batches: the parallel parse must keep file order.
	if serial := readAll(t, a.Bytes(), &Importer{workers: 1}); !reflect.DeepEqual(serial, res) {
		t.Error("one worker and several workers read the file differently")
	}
	var maxReal int64
	brands := map[string]bool{}
	for _, p := range sample {
		maxReal = max(maxReal, p.ID)
		brands[p.Brand] = true
	}
	seen := map[int64]bool{}
	withAccords := 0
	for _, p := range res.Perfumes {
		if p.ID <= maxReal || seen[p.ID] {
			t.Fatalf("id %d repeats or is not above the real maximum %d", p.ID, maxReal)
		}
		seen[p.ID] = true
		if !brands[p.Brand] {
			t.Errorf("brand %q is not a real brand", p.Brand)
		}
		if len(p.Accords) > 0 {
			withAccords++
			if p.Accords[0].Strength != 100 {
				t.Errorf("strongest accord of %d is %v, want 100", p.ID, p.Accords[0].Strength)
			}
		}
	}
	if withAccords < n*9/10 {
		t.Errorf("only %d of %d generated perfumes have accords", withAccords, n)
	}
}

func TestGenerateErrors(t *testing.T) {
	if err := Generate(&bytes.Buffer{}, 10, 1, nil); err == nil {
		t.Error("empty sample accepted")
	}
	if err := Generate(&bytes.Buffer{}, -1, 1, []catalog.Perfume{{ID: 1, Name: "A"}}); err == nil {
		t.Error("negative count accepted")
	}
}

func TestGenerateSmallSample(t *testing.T) {
	sample := readFixture(t, "small.jsonl").Perfumes
	var buf bytes.Buffer
	if err := Generate(&buf, 2000, 7, sample); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `\u0026`) {
		t.Error("HTML-escaped output; the catalogue writes & as is")
	}
	res := readAll(t, buf.Bytes(), New(nil))
	if len(res.Rejected) != 0 || len(res.Perfumes) != 2000 {
		t.Fatalf("read back %d perfumes, rejected %v", len(res.Perfumes), res.Rejected)
	}
	if res.Perfumes[0].ID != 109851 {
		t.Errorf("first id %d, want 109851", res.Perfumes[0].ID)
	}

	// Break line 1500 (in the third batch) and repeat line 3 at the end:
	// line numbers and order must hold across batches and workers.
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	lines[1499] = "{broken"
	lines = append(lines, lines[2])
	input := []byte(strings.Join(lines, "\n"))
	want := []RowError{
		{File: "generated.jsonl", Line: 1500, Reason: "invalid JSON: invalid character 'b' looking for beginning of object key string"},
		{File: "generated.jsonl", Line: 2001, Reason: "duplicate id 109853 (first on line 3)"},
	}
	for _, workers := range []int{1, 3} {
		res := readAll(t, input, &Importer{workers: workers})
		if !reflect.DeepEqual(res.Rejected, want) || len(res.Perfumes) != 1999 {
			t.Errorf("workers=%d: %d perfumes, rejected %v", workers, len(res.Perfumes), res.Rejected)
		}
	}
}
