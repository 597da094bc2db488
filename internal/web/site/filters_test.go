package site

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseFiltersReadsTheForm: checkboxes repeat a parameter (genders
// may also come as a comma list); case and spaces aside, each value is
// read once, and "any" choices (empty values) are absent. A note's name
// with a comma is one name.
func TestParseFiltersReadsTheForm(t *testing.T) {
	want := filters{Genders: []string{"feminine", "unisex"}, Season: "winter", Time: "night",
		Accords: []string{"woody", "vanilla"}, Notes: []string{"Rose"}, From: 2010, To: 2020, MinRating: "4", Sort: "newest"}
	for _, raw := range []string{
		"gender=feminine&gender=unisex&season=winter&time=night&accords=woody&accords=vanilla&notes=Rose&from=2010&to=2020&minRating=4&sort=newest",
		"gender=Feminine,+unisex,feminine&season=WINTER&time=night&accords=woody&accords=+vanilla&accords=woody&notes=Rose&from=2010&to=2020&minRating=4.0&sort=newest&q=ignored&page=2",
		"gender=feminine,unisex&season=&season=winter&time=night&accords=woody&accords=vanilla&notes=Rose&notes=&from=2010&to=2020&minRating=4&sort=newest",
	} {
		v, _ := url.ParseQuery(raw)
		got, errs := parseFilters(v)
		if len(errs) > 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v %q\nwant %+v", raw, got, errs, want)
		}
	}
	if f, _ := parseFilters(url.Values{"notes": {"Sideritis, Mountain Tea"}}); len(f.Notes) != 1 {
		t.Errorf("a note with a comma reads as %q", f.Notes)
	}
	if f, errs := parseFilters(url.Values{"season": {""}, "time": {""}, "from": {""}, "minRating": {""}, "sort": {""}}); f.any() || errs != nil {
		t.Errorf("a form left as it was reads as %+v %q", f, errs)
	}
}

// TestParseFiltersRefusesInTheFormsWords: every bad value is a sentence
// naming the field as the panel labels it, all of them at once, and a
// long value is cut in the message.
func TestParseFiltersRefusesInTheFormsWords(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"gender=robot", "Gender: “robot” is not one of feminine, masculine or unisex."},
		{"season=monsoon", "Season: “monsoon” is not one of winter, spring, summer, fall."},
		{"season=winter&season=summer", "Season: choose one."},
		{"time=noon", "Time of day: “noon” is not one of day, night."},
		{"sort=cheapest", "Sort by: “cheapest” is not one of popular, rating, newest, oldest, name."},
		{"from=20x5", "Year from: “20x5” is not a year (such as 2015)."},
		{"to=0", "Year to: “0” is not a year (such as 2015)."},
		{"from=2020&to=2010", "Year: “from” (2020) is after “to” (2010)."},
		{"minRating=6", "Rating: “6” is not a rating from 0 to 5."},
		{"minRating=NaN", "Rating: “nan” is not a rating from 0 to 5."},
		{"accords=a" + strings.Repeat("&accords=a", 20) + "&accords=" + strings.Join(strings.Split("abcdefghijklmnopqrstu", ""), "&accords="), "Accords: choose at most 20."},
		{"notes=" + strings.Repeat("x", 201), "Notes: “" + strings.Repeat("x", 40) + "…” is not a name."},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.raw)
		_, errs := parseFilters(v)
		if len(errs) != 1 || errs[0] != tt.want {
			t.Errorf("%.40s: %q, want %q", tt.raw, errs, tt.want)
		}
	}
	v, _ := url.ParseQuery("gender=robot&season=monsoon&from=x")
	if _, errs := parseFilters(v); len(errs) != 3 {
		t.Errorf("three bad values give %q", errs)
	}
}

// TestFiltersAddressRoundTrips: the address of the filters read from a
// form reads back as the same filters, in the form's order, with the
// search's text and without what is unset; paging links and chips keep
// it.
func TestFiltersAddressRoundTrips(t *testing.T) {
	v, _ := url.ParseQuery("gender=feminine&gender=masculine&accords=fresh+spicy&notes=Sideritis%2C+Mountain+Tea&notes=Rose&from=2015&minRating=3.5&sort=rating&season=")
	f, _ := parseFilters(v)
	addr := f.address("/search", "rose", 1)
	if want := "/search?q=rose&sort=rating&gender=feminine&gender=masculine&accords=fresh+spicy&notes=Sideritis%2C+Mountain+Tea&notes=Rose&from=2015&minRating=3.5"; addr != want {
		t.Errorf("the address %s\nwant %s", addr, want)
	}
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	if back, errs := parseFilters(u.Query()); errs != nil || !reflect.DeepEqual(back, f) {
		t.Errorf("%s reads back as %+v %q", addr, back, errs)
	}
	if got := (filters{}).address("/brands/dior", "", 1); got != "/brands/dior" {
		t.Errorf("no filters: %s", got)
	}
	if got := (filters{}).address("/brands/dior", "", 3); got != "/brands/dior?page=3" {
		t.Errorf("no filters, page 3: %s", got)
	}
	pg := f.pager("/search", "rose", 2, 5)
	links := map[string]string{pg.Prev: "", pg.Next: "3"}
	for _, l := range pg.Links {
		if l.N > 1 {
			links[l.URL] = strconv.Itoa(l.N)
		}
	}
	for link, page := range links {
		l, _ := url.Parse(link)
		got, _ := parseFilters(l.Query())
		if !reflect.DeepEqual(got, f) || l.Query().Get("q") != "rose" || l.Query().Get("page") != page {
			t.Errorf("the paging link %s lost the filters or its page %q", link, page)
		}
	}
	chips := f.chips("/search", "rose")
	if len(chips) != 7 {
		t.Fatalf("chips %+v", chips)
	}
	for _, c := range chips {
		l, _ := url.Parse(c.URL)
		got, _ := parseFilters(l.Query())
		if l.Query().Get("sort") != "rating" || l.Query().Get("q") != "rose" || len(got.chips("/", "")) != len(chips)-1 {
			t.Errorf("the chip %q leads to %s", c.Label, c.URL)
		}
	}
	if l, _ := url.Parse(chips[0].URL); l.Query()["gender"][0] != "masculine" || len(l.Query()["gender"]) != 1 {
		t.Errorf("removing Feminine leads to %s", chips[0].URL)
	}
}

// FuzzParseFilters: any address reads without a panic, every problem is a
// sentence that names a field, and filters read without a problem write
// an address that reads back as the same filters.
func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{
		"gender=feminine&gender=unisex&season=winter&accords=woody&notes=Sideritis%2C+Mountain+Tea&from=2010&to=2020&minRating=4&sort=newest",
		"gender=,,&season=&from=-1&to=%ff&minRating=1e400", "notes=%2C&accords=+", "from=2020&to=2010", "minRating=NaN",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		got, errs := parseFilters(v)
		for _, e := range errs {
			if !strings.Contains(e, ": ") || utf8.RuneCountInString(e) > 200 {
				t.Fatalf("the problem %q", e)
			}
		}
		if errs != nil {
			return
		}
		u, err := url.Parse(got.address("/search", "", 1))
		if err != nil {
			t.Fatal(err)
		}
		back, errs := parseFilters(u.Query())
		if errs != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("%q reads as %+v, its address %s as %+v %q", raw, got, u, back, errs)
		}
	})
}
