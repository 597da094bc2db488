package view

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

func TestParseYearRange(t *testing.T) {
	for s, want := range map[string]index.YearRange{
		"2015": {From: 2015, To: 2015}, "2010-2020": {From: 2010, To: 2020}, "2015-": {From: 2015},
		"-1990": {To: 1990}, " 1999 - 2001 ": {From: 1999, To: 2001}, "7": {From: 7, To: 7},
	} {
		got, err := ParseYearRange(s)
		if err != nil || got != want {
			t.Errorf("ParseYearRange(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-", "x", "20x5", "12345", "0", "2020-2010", "2010--2020", "2010-2020-2030", "+2015", "2015.5", "١٩٩٠"} {
		if _, err := ParseYearRange(s); err == nil || err.Parameter != "year" {
			t.Errorf("ParseYearRange(%q) = %v, want a year error", s, err)
		}
	}
}

func TestParseBrowseReadsEveryParameter(t *testing.T) {
	v, _ := url.ParseQuery("q=rose&brand=dior&page=2&limit=500&gender=Feminine,unisex&accords=woody,-Sweet&notes=-vanilla,Rose" +
		"&season=Summer&time=DAY&year=2010-&minRating=3.5&sort=Newest&facets=gender,year,gender")
	q, err := ParseBrowse(v)
	if err != nil {
		t.Fatal(err)
	}
	want := index.BrowseQuery{Q: "rose", Brand: "dior", Page: 2, Limit: 100,
		Genders: []catalog.Gender{"feminine", "unisex"}, Accords: []string{"woody"}, NotAccords: []string{"Sweet"},
		Notes: []string{"Rose"}, NotNotes: []string{"vanilla"}, Season: "summer", Time: "day",
		Years: index.YearRange{From: 2010}, MinRating: 3.5, Sort: "newest", Facets: []string{"gender", "year"}}
	if g, w := fmt.Sprintf("%+v", q), fmt.Sprintf("%+v", want); g != w {
		t.Errorf("got  %s\nwant %s", g, w)
	}
	if IsPlainList(q) {
		t.Error("a filtered query counts as a plain list")
	}
	plain, _ := url.ParseQuery("q=rose&brand=dior&page=2&limit=5&colour=blue")
	if p, err := ParseBrowse(plain); err != nil || !IsPlainList(p) {
		t.Errorf("q, brand, page and limit: %+v, %v", p, err)
	}
}

// FuzzParseYearRange holds the year parser to its contract on any input:
// an error names the year parameter, and a range it accepts is ordered and
// within 1–9999 at each end it sets.
func FuzzParseYearRange(f *testing.F) {
	for _, s := range []string{"2015", "2010-2020", "2015-", "-1990", "-", "", "9999-1", "0-0", " 1 - 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseYearRange(s)
		if err != nil {
			if err.Parameter != "year" || r != (index.YearRange{}) {
				t.Fatalf("%q: %v with %+v", s, err, r)
			}
			return
		}
		if r.Any() || r.From < 0 || r.To < 0 || r.From > 9999 || r.To > 9999 || (r.To != 0 && r.From > r.To) {
			t.Fatalf("%q accepted as %+v", s, r)
		}
	})
}

// FuzzParseBrowse feeds any query string to ParseBrowse: it never panics,
// every error is a ParamError naming a parameter it reads, and what it
// accepts stays within the contract's limits.
func FuzzParseBrowse(f *testing.F) {
	for _, s := range []string{"gender=feminine,masculine&accords=woody,-sweet&year=2010-&minRating=4&sort=rating&facets=year",
		"ids=a,b,c", "ids=a&q=x", "notes=-,-&accords=,,", "year=1-2-3&minRating=NaN", "limit=0&page=-1"} {
		f.Add(s)
	}
	known := append([]string{"q", "brand", "page", "limit"}, BrowseParams...)
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseBrowse(v)
		var pe catalog.ParamErrors
		if err != nil {
			if !errors.As(err, &pe) {
				t.Fatalf("%q: %T %v", raw, err, err)
			}
			for _, e := range pe {
				if !strings.Contains(strings.Join(known, " "), e.Parameter) {
					t.Fatalf("%q: an error names %q", raw, e.Parameter)
				}
			}
			return
		}
		if len(q.IDs) > index.MaxIDs || len(q.Accords)+len(q.NotAccords) > MaxListItems || q.MinRating < 0 || q.MinRating > 5 ||
			q.Limit < 1 || q.Limit > PerfumesLimit.Max || q.Page < 1 || q.Page > MaxPage {
			t.Fatalf("%q accepted as %+v", raw, q)
		}
	})
}

// FuzzBrowseValuesRoundTrip: any query ParseBrowse accepts is read back
// the same from the address BrowseValues writes of it.
func FuzzBrowseValuesRoundTrip(f *testing.F) {
	for _, s := range []string{"gender=feminine,masculine&accords=woody,-sweet&notes=-Rose&year=2010-&minRating=4.25&sort=rating&facets=year,notes&page=3&limit=7",
		"year=-1990&q=rose&brand=dior", "year=2015", "ids=a,b,c&limit=20", "season=winter&time=night"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseBrowse(v)
		if err != nil {
			return
		}
		back, err := ParseBrowse(BrowseValues(q))
		if err != nil {
			t.Fatalf("%q: BrowseValues wrote %q, refused: %v", raw, BrowseValues(q).Encode(), err)
		}
		if g, w := fmt.Sprintf("%+v", back), fmt.Sprintf("%+v", q); g != w {
			t.Fatalf("%q: read back\n%s\nwant\n%s", raw, g, w)
		}
	})
}
