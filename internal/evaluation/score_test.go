package evaluation

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// fakeIndex answers searches and dupes from fixed slug lists.
type fakeIndex struct {
	tiers   map[string]catalog.PriceTier
	results map[string][]string // query → slugs
	dupes   map[string][]string // original → slugs
}

func (f *fakeIndex) Tier(slug string) (catalog.PriceTier, error) {
	t, ok := f.tiers[slug]
	if !ok {
		return t, fmt.Errorf("perfume %q: %w", slug, catalog.ErrNotFound)
	}
	return t, nil
}

func (f *fakeIndex) Search(q string, limit int) ([]string, int) {
	r := f.results[q]
	return r[:min(limit, len(r))], len(r)
}

func (f *fakeIndex) Dupes(slug string, limit int) ([]string, error) {
	d := f.dupes[slug]
	return d[:min(limit, len(d))], nil
}

func newFake() *fakeIndex {
	f := &fakeIndex{tiers: map[string]catalog.PriceTier{
		"lux": catalog.TierLuxury, "prem": catalog.TierPremium, "cheap": catalog.TierBudget, "mid": catalog.TierAffordable,
	}, results: map[string][]string{}, dupes: map[string][]string{}}
	for i := range 60 {
		f.tiers[fmt.Sprint("p", i)] = catalog.TierBudget
	}
	return f
}

func TestEvaluateSearch(t *testing.T) {
	f := newFake()
	f.results["a"] = []string{"lux", "prem"}
	f.results["b"] = []string{"prem", "cheap", "lux"}
	f.results["c"] = nil
	f.results["d"] = []string{"cheap"}
	cases := []SearchCase{
		{Query: "a", Want: "lux", MaxRank: 1, Category: "x"},   // rank 1: pass
		{Query: "b", Want: "lux", MaxRank: 2, Category: "x"},   // rank 3: fail, RR 1/3
		{Query: "c", Want: "lux", MaxRank: 5, Category: "y"},   // not found
		{Query: "c", Category: CategoryNone},                   // empty: pass
		{Query: "d", Category: CategoryNone},                   // found one: fail
		{Query: "b", Want: "cheap", MaxRank: 2, Category: "y"}, // rank 2: pass
	}
	r, err := EvaluateSearch(f, cases)
	if err != nil {
		t.Fatal(err)
	}
	want := []Score{
		{Category: "x", Cases: 2, Passed: 1, MRR: (1 + 1.0/3) / 2},
		{Category: "y", Cases: 2, Passed: 1, MRR: 0.25},
		{Category: CategoryNone, Cases: 2, Passed: 1, MRR: 0.5},
	}
	if len(r.Categories) != len(want) {
		t.Fatalf("categories %+v", r.Categories)
	}
	for i, w := range want {
		if g := r.Categories[i]; g.Category != w.Category || g.Cases != w.Cases || g.Passed != w.Passed || math.Abs(g.MRR-w.MRR) > 1e-9 {
			t.Errorf("category %d = %+v, want %+v", i, g, w)
		}
	}
	if o := r.Overall; o.Cases != 6 || o.Passed != 3 || o.Accuracy() != 0.5 || math.Abs(o.MRR-(1+1.0/3+0+1+0+0.5)/6) > 1e-9 {
		t.Errorf("overall = %+v", o)
	}
	if r.Outcomes[1].Rank != 3 || r.Outcomes[2].Rank != 0 || r.Outcomes[4].Total != 1 {
		t.Errorf("outcomes = %+v", r.Outcomes)
	}
	if r.Category("nope").Cases != 0 || r.Category("x").Passed != 1 {
		t.Error("Category lookup")
	}
	if _, err := EvaluateSearch(f, []SearchCase{{Query: "a", Want: "gone", MaxRank: 1, Category: "x"}}); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown slug: %v", err)
	}
	var out bytes.Buffer
	if err := WriteSearch(&out, r, true); err != nil || !strings.Contains(out.String(), "FAIL") || !strings.Contains(out.String(), "50.0%") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestEvaluateDupes(t *testing.T) {
	f := newFake()
	long := []string{}
	for i := range 30 {
		long = append(long, fmt.Sprint("p", i))
	}
	f.dupes["lux"] = append([]string{"mid"}, long...) // mid 1st, p14 16th, p25 27th
	f.dupes["prem"] = []string{"cheap"}
	pairs := []DupePair{
		{Original: "lux", Dupe: "mid"},
		{Original: "lux", Dupe: "p14"},
		{Original: "lux", Dupe: "p25"},
		{Original: "prem", Dupe: "p3"},
	}
	r, err := EvaluateDupes(f, pairs)
	if err != nil {
		t.Fatal(err)
	}
	o := r.Overall
	if o.Pairs != 4 || o.At10 != 1 || o.At20 != 2 || o.RecallAt10() != 0.25 || o.RecallAt20() != 0.5 ||
		math.Abs(o.MRR-(1+1.0/16+1.0/27)/4) > 1e-9 {
		t.Errorf("overall = %+v", o)
	}
	if len(r.Groups) != 3 || r.Groups[0].Group != "luxury → affordable" || r.Groups[2].Group != "premium → budget" {
		t.Errorf("groups = %+v", r.Groups)
	}
	for _, bad := range []DupePair{{Original: "cheap", Dupe: "prem"}, {Original: "lux", Dupe: "gone"}, {Original: "gone", Dupe: "cheap"}} {
		if _, err := EvaluateDupes(f, []DupePair{bad}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	var out bytes.Buffer
	if err := WriteDupes(&out, r, true); err != nil || !strings.Contains(out.String(), "25.0%") || !strings.Contains(out.String(), "lux → p14") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestParseSets(t *testing.T) {
	good := "# comment\n\nsauvage\tdior-sauvage\t1\texact\nxqzzv\t-\t0\tnone\r\n"
	cs, err := ParseSearchCases(good)
	if err != nil || len(cs) != 2 || cs[0].Line != 3 || cs[1].Want != "" || cs[1].Category != CategoryNone {
		t.Errorf("ParseSearchCases = %+v, %v", cs, err)
	}
	for _, bad := range []string{
		"sauvage\tdior-sauvage\t1",          // three fields
		"sauvage\tdior-sauvage\tone\texact", // rank not a number
		"sauvage\tdior-sauvage\t0\texact",   // rank below 1
		"sauvage\t-\t1\texact",              // no slug
		"xqzzv\tdior-sauvage\t0\tnone",      // none with a slug
		"\tdior-sauvage\t1\texact",          // empty query
		"sauvage\tdior-sauvage\t1\t",        // empty category
	} {
		if _, err := ParseSearchCases(bad); err == nil {
			t.Errorf("ParseSearchCases(%q): no error", bad)
		}
	}
	ps, err := ParseDupePairs("# c\na\tb\n")
	if err != nil || len(ps) != 1 || ps[0] != (DupePair{Original: "a", Dupe: "b", Line: 2}) {
		t.Errorf("ParseDupePairs = %+v, %v", ps, err)
	}
	for _, bad := range []string{"a", "a\ta", "a\t", "a\tb\tc"} {
		if _, err := ParseDupePairs(bad); err == nil {
			t.Errorf("ParseDupePairs(%q): no error", bad)
		}
	}
}

func FuzzParseSearchCases(f *testing.F) {
	f.Add(searchTSV)
	f.Add("a\tb\t1\tc\n")
	f.Fuzz(func(t *testing.T, text string) {
		cs, err := ParseSearchCases(text)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Query == "" || (c.Category != CategoryNone && (c.Want == "" || c.MaxRank < 1)) {
				t.Errorf("accepted a bad case %+v", c)
			}
		}
	})
}

func FuzzParseDupePairs(f *testing.F) {
	f.Add(dupesTSV)
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := ParseDupePairs(text)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Original == "" || p.Dupe == "" || p.Original == p.Dupe {
				t.Errorf("accepted a bad pair %+v", p)
			}
		}
	})
}
