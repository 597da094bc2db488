package site

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestParseFiltersReadsTheForm: checkboxes repeat a parameter and the
// canonical address joins them with commas; both read the same, case and
// spaces aside, each value once; "any" choices (empty values) are absent.
func TestParseFiltersReadsTheForm(t *testing.T) {
	want := filters{Genders: []string{"feminine", "unisex"}, Season: "winter", Time: "night",
		Accords: []string{"woody", "vanilla"}, Notes: []string{"Rose"}, From: 2010, To: 2020, MinRating: "4", Sort: "newest"}
	for _, raw := range []string{
		"gender=feminine&gender=unisex&season=winter&time=night&accords=woody&accords=vanilla&notes=Rose&from=2010&to=2020&minRating=4&sort=newest",
		"gender=Feminine,+unisex,feminine&season=WINTER&time=night&accords=woody,vanilla,woody&notes=Rose&from=2010&to=2020&minRating=4.0&sort=newest&q=ignored&page=2",
		"gender=feminine,unisex&season=&season=winter&time=night&accords=woody,vanilla&notes=Rose&notes=&from=2010&to=2020&minRating=4&sort=newest",
	} {
		v, _ := url.ParseQuery(raw)
		got, errs := parseFilters(v)
		if len(errs) > 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v %q\nwant %+v", raw, got, errs, want)
		}
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
		{"season=winter,summer", "Season: choose one."},
		{"time=noon", "Time of day: “noon” is not one of day, night."},
		{"sort=cheapest", "Sort by: “cheapest” is not one of popular, rating, newest, oldest, name."},
		{"from=20x5", "Year from: “20x5” is not a year (such as 2015)."},
		{"to=0", "Year to: “0” is not a year (such as 2015)."},
		{"from=2020&to=2010", "Year: “from” (2020) is after “to” (2010)."},
		{"minRating=6", "Rating: “6” is not a rating from 0 to 5."},
		{"minRating=NaN", "Rating: “nan” is not a rating from 0 to 5."},
		{"accords=" + strings.Repeat("a,", 21) + "a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15,a16,a17,a18,a19,a20", "Accords: choose at most 20."},
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

// TestFiltersAddressRoundTrips: the canonical address of the filters
// read from a form reads back as the same filters, keeps the search's
// text, and leaves out what is unset; paging links and chips keep it.
func TestFiltersAddressRoundTrips(t *testing.T) {
	v, _ := url.ParseQuery("gender=feminine&gender=masculine&accords=fresh+spicy&notes=Pink+Pepper&from=2015&minRating=3.5&sort=rating&season=")
	f, _ := parseFilters(v)
	addr := f.address("/search", "rose")
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	back, errs := parseFilters(u.Query())
	if errs != nil || !reflect.DeepEqual(back, f) || u.Query().Get("q") != "rose" || u.Query().Has("season") || u.Query().Has("to") {
		t.Errorf("%s reads back as %+v %q", addr, back, errs)
	}
	if got := (filters{}).address("/brands/dior", ""); got != "/brands/dior" {
		t.Errorf("no filters: %s", got)
	}
	pg := f.pager("/search", "rose", 2, 5)
	for _, link := range []string{pg.Prev, pg.Next, pg.Links[len(pg.Links)-1].URL} {
		l, _ := url.Parse(link)
		if got, _ := parseFilters(l.Query()); !reflect.DeepEqual(got, f) || l.Query().Get("q") != "rose" {
			t.Errorf("the paging link %s lost the filters", link)
		}
	}
	chips := f.chips("/search", "rose")
	if len(chips) != 6 {
		t.Fatalf("chips %+v", chips)
	}
	for _, c := range chips {
		l, _ := url.Parse(c.URL)
		got, _ := parseFilters(l.Query())
		if l.Query().Get("sort") != "rating" || l.Query().Get("q") != "rose" || len(got.values()) != len(f.values())-1 && c.Label != "Feminine" && c.Label != "Masculine" {
			t.Errorf("the chip %q leads to %s", c.Label, c.URL)
		}
	}
	if l, _ := url.Parse(chips[0].URL); l.Query().Get("gender") != "masculine" {
		t.Errorf("removing Feminine leads to %s", chips[0].URL)
	}
}
