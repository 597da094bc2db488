package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestZipfShape(t *testing.T) {
	const n, draws = 1000, 200000
	z := newZipf(n, 1.0, 1, "test")
	counts := make([]int, n)
	for range draws {
		counts[z.next()]++
	}
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / float64(k)
	}
	// Rank 1 (index 0) has probability 1/H(n), rank 2 half that.
	for _, k := range []int{0, 1, 9} {
		want := draws / (float64(k+1) * h)
		if got := float64(counts[k]); math.Abs(got-want) > 0.05*want {
			t.Errorf("rank %d drawn %v times, want about %.0f", k+1, got, want)
		}
	}
	again := newZipf(n, 1.0, 1, "test")
	z = newZipf(n, 1.0, 1, "test")
	for range 100 {
		if z.next() != again.next() {
			t.Fatal("the same seed and purpose drew different ranks")
		}
	}
}

func TestSearchSetDistinct(t *testing.T) {
	var ps []perfume
	for i := range 100 {
		ps = append(ps, perfume{slug: fmt.Sprint("p", i), name: fmt.Sprint("Name Number ", i), brand: "Brand"})
	}
	ps = append(ps, perfume{slug: "dup", name: "name number 1", brand: "Other"}) // the same name, other case
	set := searchSet(ps, []string{"dior sauvage", "Dior  Sauvage"}, 60, 1)
	if len(set) != 60 {
		t.Fatalf("%d searches, want 60", len(set))
	}
	seen := map[string]bool{}
	for _, p := range set {
		u, err := url.Parse(p)
		if err != nil || u.Path != "/api/perfumes" {
			t.Fatalf("bad path %q", p)
		}
		k := strings.ToLower(u.Query().Get("q"))
		if seen[k] {
			t.Errorf("query %q twice", k)
		}
		seen[k] = true
	}
	if !seen["dior sauvage"] {
		t.Error("the given queries are missing")
	}
}

func TestTypoAndPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 50 {
		if got := typo("Sauvage", r); len(got) != len("Sauvage")-1 {
			t.Fatalf("typo(Sauvage) = %q, want one letter fewer", got)
		}
		got := prefix("Sauvage", r)
		if !strings.HasPrefix("Sauvage", got) || len(got) < 3 || len(got) >= len("Sauvage") {
			t.Fatalf("prefix(Sauvage) = %q", got)
		}
	}
	if got := typo("No 5", r); got != "No 5" {
		t.Errorf("typo(No 5) = %q, want it whole (too few letters)", got)
	}
}

func TestMatchSet(t *testing.T) {
	var accords, notes []string
	for i := range 25 {
		accords = append(accords, fmt.Sprint("accord ", i))
		notes = append(notes, fmt.Sprint("note ", i))
	}
	all := matchSet(accords, notes, 1_000_000, 1)
	// 190 pairs of 20 accords, 11 note choices, 20 filter choices.
	if want := 190 * 11 * 20; len(all) != want || len(compactSorted(all)) != want {
		t.Fatalf("%d profiles (%d distinct), want %d", len(all), len(compactSorted(all)), want)
	}
	if got := matchSet(accords, notes, 500, 1); len(got) != 500 || !slices.Equal(got, all[:500]) {
		t.Error("a smaller set is not the first of the same order")
	}
	u, err := url.Parse(all[0])
	if err != nil || len(strings.Split(u.Query().Get("accords"), ",")) != 2 {
		t.Errorf("bad profile %q", all[0])
	}
}

func TestListSet(t *testing.T) {
	for _, tc := range []struct{ count, n int }{{37490, 2000}, {300, 10000}} {
		set, ranked := listSet(tc.count, tc.n, 1)
		if len(compactSorted(set)) != len(set) || len(set) != len(ranked) {
			t.Fatalf("count %d: %d pages, %d distinct, %d ranked", tc.count, len(set), len(compactSorted(set)), len(ranked))
		}
		if tc.n < 10000 && len(set) != tc.n {
			t.Errorf("count %d: %d pages, want %d", tc.count, len(set), tc.n)
		}
		for _, p := range set {
			var page, limit int
			if _, err := fmt.Sscanf(p, "/api/perfumes?page=%d&limit=%d", &page, &limit); err != nil {
				t.Fatalf("bad page %q", p)
			}
			if (page-1)*limit >= tc.count || limit < minListLimit || limit > maxListLimit {
				t.Errorf("count %d: %q past the end or out of bounds", tc.count, p)
			}
		}
		if !strings.HasPrefix(ranked[0], "/api/perfumes?page=1&") {
			t.Errorf("first ranked page %q, want page 1", ranked[0])
		}
	}
}

func TestRunWritesBothMixes(t *testing.T) {
	dir := t.TempDir()
	csv := "id,slug,deleted,name,brand,brand_slug,year,gender,concentration,rating,rating_count,price_tier,accords\n"
	for i := range 50 {
		csv += fmt.Sprintf("%d,p%d,false,Perfume %d,Brand,brand,,,,4.0,%d,,\n", i, i, i, i*10)
	}
	csv += "99,gone,true,Gone,Brand,brand,,,,4.0,99999,,\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cat := write("c.csv", csv)
	acc := write("a.json", `{"data":[{"name":"woody"},{"name":"fresh spicy"},{"name":"citrus"}]}`)
	notes := write("n.json", `{"data":[{"name":"Tonka Bean"}]}`)
	for _, mix := range []string{"cold", "zipf"} {
		out := filepath.Join(dir, mix)
		os.Mkdir(out, 0o755)
		err := run([]string{"--mix", mix, "--catalogue", cat, "--accords", acc, "--notes", notes,
			"--distinct", "30", "--requests", "500", "--dir", out})
		if err != nil {
			t.Fatalf("%s: %v", mix, err)
		}
		for _, class := range strings.Fields("detail list search similar dupes match brands notes page") {
			seq := lines(t, filepath.Join(out, class+".seq"))
			paths := lines(t, filepath.Join(out, class+".paths"))
			if len(compactSorted(paths)) != len(paths) || len(compactSorted(seq)) != len(paths) {
				t.Errorf("%s %s: .paths is not the distinct paths of .seq", mix, class)
			}
			if mix == "zipf" && class != "brands" && class != "notes" && len(seq) != 500 {
				t.Errorf("zipf %s: %d requests, want 500", class, len(seq))
			}
			if mix == "cold" && (class == "detail" || class == "search" || class == "list") && len(seq) != 30 {
				t.Errorf("cold %s: %d requests, want 30", class, len(seq))
			}
			if slices.Contains(seq, "/api/perfumes/gone") {
				t.Errorf("%s %s asks for a deleted perfume", mix, class)
			}
		}
		if mix == "zipf" {
			// The most rated perfume is drawn most.
			seq := lines(t, filepath.Join(out, "detail.seq"))
			n := map[string]int{}
			for _, p := range seq {
				n[p]++
			}
			if n["/api/perfumes/p49"] < n["/api/perfumes/p0"] || n["/api/perfumes/p49"] < 50 {
				t.Errorf("the most rated perfume drawn %d times, the least %d", n["/api/perfumes/p49"], n["/api/perfumes/p0"])
			}
		}
	}
}

func lines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func compactSorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}
