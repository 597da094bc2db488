package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// readBundled reads the embedded catalogue with the real reference tables.
func readBundled(tb testing.TB) *Result {
	tb.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		tb.Fatal(err)
	}
	res, err := New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestBundledCatalogue reads the real catalogue once and runs the checks
// that need it as subtests, since reading takes about a second.
func TestBundledCatalogue(t *testing.T) {
	if racedetect.Enabled {
		// Reading is single-goroutine code; the race detector adds nothing
		// here but twenty seconds.
		t.Skip("slow under the race detector; CI's plain pass (.ci/run, without -race) runs it")
	}
	res := readBundled(t)
	if len(res.Rejected) != 0 {
		t.Fatalf("%d rejected rows, first: %v", len(res.Rejected), res.Rejected[0])
	}
	if got := len(res.Perfumes); got != 37490 {
		t.Errorf("got %d perfumes, want 37490", got)
	}
	t.Run("invariants", func(t *testing.T) { checkInvariants(t, res.Perfumes) })
	t.Run("concentration matches the build script", func(t *testing.T) {
		checkConcentrations(t, res.Perfumes)
	})
	t.Run("write and read back", func(t *testing.T) {
		var buf bytes.Buffer
		if err := writeJSONL(&buf, res.Perfumes); err != nil {
			t.Fatal(err)
		}
		back := readAll(t, buf.Bytes(), New(tiersOf(res.Perfumes)))
		if len(back.Rejected) != 0 || len(back.Perfumes) != len(res.Perfumes) {
			t.Fatalf("read back %d perfumes, rejected %v", len(back.Perfumes), back.Rejected)
		}
		for i := range back.Perfumes {
			if !reflect.DeepEqual(back.Perfumes[i], res.Perfumes[i]) {
				t.Fatalf("perfume %d changed:\n got %+v\nwant %+v", i, back.Perfumes[i], res.Perfumes[i])
			}
		}
	})
	t.Run("generate", func(t *testing.T) { testGenerate(t, res.Perfumes) })
}

func checkInvariants(t *testing.T, ps []catalog.Perfume) {
	tiered, described := 0, 0
	for _, p := range ps {
		if p.Slug == "" || p.Description == "" || p.Accords == nil {
			t.Errorf("perfume %d: empty slug, description or accords: %+v", p.ID, p)
		}
		for _, v := range []float64{p.Seasons.Winter, p.Seasons.Spring, p.Seasons.Summer, p.Seasons.Fall, p.DayNight.Day, p.DayNight.Night} {
			if v < 0 || v > 100 {
				t.Errorf("perfume %d: share %v outside 0–100", p.ID, v)
			}
		}
		if p.PriceTier.Known() {
			tiered++
		}
		if p.Family != "" {
			described++
		}
	}
	// The data README: tiered brands hold 74.8% of the perfumes.
	if share := float64(tiered) / float64(len(ps)); share < 0.74 || share > 0.76 {
		t.Errorf("%.3f of perfumes have a tier, want about 0.748", share)
	}
	if described != 8812 {
		t.Errorf("%d perfumes have a family, want 8812", described)
	}
}

// checkConcentrations recomputes every concentration from the names, as
// data/build/concentration.py did, and compares with the stored field.
func checkConcentrations(t *testing.T, ps []catalog.Perfume) {
	stems := map[string]Stems{}
	for _, p := range ps {
		if stems[p.Brand] == nil {
			stems[p.Brand] = Stems{}
		}
		stems[p.Brand].Add(p.Name)
	}
	mismatches, set := 0, 0
	for _, p := range ps {
		if p.Concentration != "" {
			set++
		}
		if got := Concentration(p.Name, stems[p.Brand]); got != p.Concentration {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("Concentration(%q) = %q, catalogue says %q", p.Name, got, p.Concentration)
			}
		}
	}
	if set != 1564 || mismatches > 0 {
		t.Errorf("%d concentrations set (want 1564), %d mismatches", set, mismatches)
	}
}

// tiersOf returns the tiers the perfumes already carry, by brand.
func tiersOf(ps []catalog.Perfume) fakeTiers {
	out := fakeTiers{}
	for _, p := range ps {
		out[p.Brand] = p.PriceTier
	}
	return out
}

func readAll(t *testing.T, data []byte, im *Importer) *Result {
	t.Helper()
	res, err := im.ReadJSONL(bytes.NewReader(data), "generated.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// writeJSONL writes ps as JSON Lines in the format ReadJSONL reads (the
// bundled catalogue's).
func writeJSONL(w io.Writer, ps []catalog.Perfume) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range ps {
		if err := enc.Encode(toOutRow(&ps[i])); err != nil {
			return fmt.Errorf("write perfume %d: %w", ps[i].ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write JSON Lines: %w", err)
	}
	return nil
}
