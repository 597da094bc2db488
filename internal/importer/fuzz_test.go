package importer

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// FuzzJSONLine checks that any line either is rejected or gives a perfume
// that meets the stored invariants and survives a write and re-read.
func FuzzJSONLine(f *testing.F) {
	for _, name := range []string{"testdata/small.jsonl", "testdata/malformed.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	im := New(nil)
	f.Fuzz(func(t *testing.T, line []byte) {
		p, reason := im.parseJSONLine(line)
		if reason != "" {
			return
		}
		checkPerfume(t, &p)
		out, err := json.Marshal(toOutRow(&p))
		if err != nil {
			t.Fatal(err)
		}
		back, reason := im.parseJSONLine(out)
		if reason != "" {
			t.Fatalf("written row rejected: %s\n%s", reason, out)
		}
		// A decoded description may hold text that looks like a tag or an
		// entity, which the second pass cleans again; everything else must
		// come back unchanged.
		back.Description, p.Description = "", ""
		if !reflect.DeepEqual(back, p) {
			t.Fatalf("round trip changed the perfume:\n got %+v\nwant %+v", back, p)
		}
	})
}

func checkPerfume(t *testing.T, p *catalog.Perfume) {
	t.Helper()
	if p.ID <= 0 || p.Name == "" || p.Brand == "" || p.Slug == "" || !p.Gender.Valid() || p.Description == "" {
		t.Fatalf("accepted perfume lacks a required field: %+v", p)
	}
	if p.Name != cleanText(p.Name) || p.Brand != cleanText(p.Brand) {
		t.Fatalf("untrimmed name or brand: %q %q", p.Name, p.Brand)
	}
	shares := []float64{p.Seasons.Winter, p.Seasons.Spring, p.Seasons.Summer, p.Seasons.Fall, p.DayNight.Day, p.DayNight.Night}
	for _, v := range shares {
		if v < 0 || v > 100 || v != round1(v) {
			t.Fatalf("share %v not on 0–100 with one decimal", v)
		}
	}
	for i, a := range p.Accords {
		if a.Name == "" || a.Strength < 0 || a.Strength > 100 || (i > 0 && a.Strength > p.Accords[i-1].Strength) {
			t.Fatalf("bad or unsorted accords: %v", p.Accords)
		}
	}
}

// FuzzReadFragDB feeds arbitrary rows after a real header: rows are
// either rejected or meet the stored invariants, and reading never fails
// for a readable input.
func FuzzReadFragDB(f *testing.F) {
	data, err := os.ReadFile("testdata/fragdb/fragrances.csv")
	if err != nil {
		f.Fatal(err)
	}
	header, body, _ := strings.Cut(string(data), "\n")
	f.Add(body)
	f.Add("1|x|Acme;b1|Name|2001|gender_for_men|\"unterminated")
	lk := &lookups{
		accords: &lookup{byID: map[string]string{"a24": "citrus"}}, notes: &lookup{byID: map[string]string{"n54": "Amber"}},
		brands: &lookup{byID: map[string]string{}}, perfumers: &lookup{byID: map[string]string{}},
	}
	im := New(nil)
	f.Fuzz(func(t *testing.T, rows string) {
		res, err := im.readFragrances(strings.NewReader(header+"\n"+rows), "fragrances.csv", lk)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Perfumes {
			checkPerfume(t, &res.Perfumes[i])
		}
		for _, re := range res.Rejected {
			if re.Line < 2 || re.Reason == "" {
				t.Fatalf("bad row error %v", re)
			}
		}
	})
}

func FuzzParsePyramid(f *testing.F) {
	f.Add("top(n2415,1.0,5.0;n146,0.96,3.67)middle(n42,0.85,3.05)base(n2260,0.85,3.05;n54,0.74,2.52)")
	f.Add("notes(n1;n2)")
	f.Add("top(n1")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePyramid(s)
		if err != nil {
			return
		}
		for _, layer := range [][]string{p.Top, p.Middle, p.Base, p.Unplaced} {
			for _, id := range layer {
				if id == "" || id != strings.TrimSpace(id) || strings.ContainsAny(id, "();,") {
					t.Fatalf("bad note id %q from %q", id, s)
				}
			}
		}
	})
}

func FuzzParseWeighted(f *testing.F) {
	f.Add("a24:100;a91:75;a33:63")
	f.Add("a24:1e400")
	f.Fuzz(func(t *testing.T, s string) {
		items, err := parseWeighted(s)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.ID == "" || math.IsNaN(it.Value) || math.IsInf(it.Value, 0) {
				t.Fatalf("bad item %+v from %q", it, s)
			}
		}
	})
}

func FuzzParseVotes(f *testing.F) {
	f.Add("season_winter:1800:11.16;season_spring:8800:54.86;season_summer:16100:100.0;season_fall:2000:12.4")
	f.Add("longevity_very_weak:1100:9.0;longevity_eternal:526:4.0")
	f.Fuzz(func(t *testing.T, s string) {
		votes, err := parseVotes(s)
		if err != nil {
			return
		}
		shares := voteShares(votes, "season_", nil)
		for k, v := range shares {
			if v < 0 || v > 100.05*float64(len(votes)) || math.IsNaN(v) {
				t.Fatalf("share %s = %v from %q", k, v, s)
			}
		}
		if m := meanVote(votes, "longevity_", longevityScale); m != 0 && (m < 1 || m > 5) {
			t.Fatalf("mean %v outside 1–5 from %q", m, s)
		}
	})
}

func FuzzParseNamedRefs(f *testing.F) {
	f.Add("Olivier Cresp;p39;Laurent Bruyere;p48")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range parseNamedRefs(s, 'p') {
			if r.Name == "" && r.ID == "" {
				t.Fatalf("empty ref from %q", s)
			}
		}
	})
}

func FuzzCleanDescription(f *testing.F) {
	f.Add("<p>Light Blue by Dolce&amp;Gabbana</p><p>It&#39;s <b>fresh</b></p>")
	f.Add("a < b > c &")
	f.Fuzz(func(t *testing.T, s string) {
		out := cleanDescription(s)
		if out != strings.TrimSpace(out) || strings.Contains(out, "\n\n\n") {
			t.Fatalf("untidy output %q from %q", out, s)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 %q from %q", out, s)
		}
	})
}
