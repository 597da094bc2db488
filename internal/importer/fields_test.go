package importer

import (
	"reflect"
	"testing"
)

func TestParseWeighted(t *testing.T) {
	tests := []struct {
		in      string
		want    []weighted
		wantErr bool
	}{
		{"", nil, false},
		{"a24:100;a91:75", []weighted{{"a24", 100}, {"a91", 75}}, false},
		{" a24 : 100 ; ; a91:7.5 ;", []weighted{{"a24", 100}, {"a91", 7.5}}, false},
		{"a24", nil, true},
		{":100", nil, true},
		{"a24:lots", nil, true},
		{"a24:NaN", nil, true},
	}
	for _, tc := range tests {
		got, err := parseWeighted(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseWeighted(%q) = %v, %v; want %v, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseVotes(t *testing.T) {
	tests := []struct {
		in      string
		want    []vote
		wantErr bool
	}{
		{"", nil, false},
		{"season_winter:1800:11.16;season_summer:16100:100.0", []vote{{"season_winter", 1800}, {"season_summer", 16100}}, false},
		{"season_day:15", []vote{{"season_day", 15}}, false},
		{"season_day", nil, true},
		{"season_day:-1:0", nil, true},
		{"season_day:1:x", nil, true},
		{"a:1:2:3", nil, true},
	}
	for _, tc := range tests {
		got, err := parseVotes(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseVotes(%q) = %v, %v; want %v, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestVoteSummaries(t *testing.T) {
	votes := []vote{{"season_winter", 1}, {"season_autumn", 3}, {"season_other", 0}}
	shares := voteShares(votes, "season_", map[string]string{"autumn": "fall"})
	if shares["winter"] != 25 || shares["fall"] != 75 {
		t.Errorf("voteShares = %v", shares)
	}
	if got := voteShares(nil, "season_", nil); len(got) != 0 {
		t.Errorf("no votes: %v", got)
	}
	lv := []vote{{"longevity_weak", 1}, {"longevity_eternal", 1}, {"longevity_unknown", 99}}
	if got := meanVote(lv, "longevity_", longevityScale); got != 3.5 {
		t.Errorf("meanVote = %v, want 3.5", got)
	}
	if got := meanVote(nil, "longevity_", longevityScale); got != 0 {
		t.Errorf("meanVote without votes = %v", got)
	}
}

func TestParsePyramid(t *testing.T) {
	tests := []struct {
		in      string
		want    pyramid
		wantErr bool
	}{
		{"", pyramid{}, false},
		{"top(n2415,1.0,5.0;n146,0.96,3.67)middle(n42,0.85,3.05)base(n2260,0.85,3.05;n54)",
			pyramid{Top: []string{"n2415", "n146"}, Middle: []string{"n42"}, Base: []string{"n2260", "n54"}}, false},
		{"top()middle(n1)", pyramid{Middle: []string{"n1"}}, false},
		{"notes(n1;n2)", pyramid{Unplaced: []string{"n1", "n2"}}, false},
		{"Heart(n1) ; base(n2)", pyramid{Middle: []string{"n1"}, Base: []string{"n2"}}, false},
		{"top(n1", pyramid{}, true},
		{"top)n1(", pyramid{}, true},
		{"top(,1.0)", pyramid{}, true},
		{"top(n1,x)", pyramid{}, true},
	}
	for _, tc := range tests {
		got, err := parsePyramid(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parsePyramid(%q) = %+v, %v; want %+v, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseNamedRefs(t *testing.T) {
	tests := []struct {
		in     string
		prefix byte
		want   []named
	}{
		{"", 'p', nil},
		{"Dolce&Gabbana;b72", 'b', []named{{"Dolce&Gabbana", "b72"}}},
		{"Olivier Cresp;p39;Laurent Bruyere;p48", 'p', []named{{"Olivier Cresp", "p39"}, {"Laurent Bruyere", "p48"}}},
		{"p39;Jo", 'p', []named{{"", "p39"}, {"Jo", ""}}},
		{"Jo;p39;p40", 'p', []named{{"Jo", "p39"}, {"", "p40"}}},
		{"Jo;p3x", 'p', []named{{"Jo", ""}, {"p3x", ""}}},
		{"Jo;b3", 'p', []named{{"Jo", ""}, {"b3", ""}}},
	}
	for _, tc := range tests {
		if got := parseNamedRefs(tc.in, tc.prefix); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseNamedRefs(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseRating(t *testing.T) {
	tests := []struct {
		in      string
		rating  float64
		count   int
		wantErr bool
	}{
		{"", 0, 0, false},
		{"3.86;35479", 3.86, 35479, false},
		{"4.2", 4.2, 0, false},
		{";12", 0, 12, false},
		{"x;1", 0, 0, true},
		{"4;many", 0, 0, true},
	}
	for _, tc := range tests {
		r, n, err := parseRating(tc.in)
		if (err != nil) != tc.wantErr || r != tc.rating || n != tc.count {
			t.Errorf("parseRating(%q) = %v, %v, %v", tc.in, r, n, err)
		}
	}
}

func TestCleanDescription(t *testing.T) {
	tests := map[string]string{
		"":                                 "",
		"plain  text ":                     "plain text",
		"<p>One &amp; two</p><p>Three</p>": "One & two\n\nThree",
		"Designer <b>The Dua</b> has":      "Designer The Dua has",
		"a < b and c > d":                  "a < b and c > d",
		"&lt;b&gt;kept&lt;/b&gt;":          "<b>kept</b>",
		"It&#39;s&nbsp;here<br/>next":      "It's here\n\nnext",
		"broken <a href=":                  "broken",
		"<p></p><div> </div>":              "",
		"ends with <":                      "ends with <",
	}
	for in, want := range tests {
		if got := cleanDescription(in); got != want {
			t.Errorf("cleanDescription(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTidyBoilerplate: the family in the boilerplate's first sentence
// takes the article of its first sound, lower case and its accents; any
// other text is left as it is.
func TestTidyBoilerplate(t *testing.T) {
	tests := map[string]string{
		"Sauvage by Dior is a Aromatic Fougere fragrance for men. Sauvage was launched in 2015.": "Sauvage by Dior is an aromatic fougère fragrance for men. Sauvage was launched in 2015.",
		"Amarige by Givenchy is a Floral fragrance for women.":                                   "Amarige by Givenchy is a floral fragrance for women.",
		"Alien by Mugler is a Oriental Woody fragrance for women.":                               "Alien by Mugler is an oriental woody fragrance for women.",
		"Lace by Avon is an Amber Floral fragrance for women.":                                   "Lace by Avon is an amber floral fragrance for women.",
		"Light Blue by Dolce&Gabbana is a fragrance for women, launched in 2001.":                "Light Blue by Dolce&Gabbana is a fragrance for women, launched in 2001.",
		"It is a Very Big Loud Woody fragrance for all.":                                         "It is a Very Big Loud Woody fragrance for all.",
		"":                                     "",
		"No boilerplate here: is a Floral one": "No boilerplate here: is a Floral one",
	}
	for in, want := range tests {
		if got := tidyBoilerplate(in); got != want {
			t.Errorf("tidyBoilerplate(%q) = %q, want %q", in, got, want)
		}
	}
	if got := familySpelling("Amber Fougere"); got != "Amber Fougère" {
		t.Errorf("familySpelling = %q", got)
	}
}

func TestCleanText(t *testing.T) {
	tests := map[string]string{
		"":                   "",
		"Light Blue":         "Light Blue",
		"  Light   Blue ":    "Light Blue",
		"Light\u00a0Blue":    "Light Blue",
		"Light\tBlue\n":      "Light Blue",
		" ":                  "",
		"Terre d'Hermès":     "Terre d'Hermès",
		"One\u3000Two Three": "One Two Three",
	}
	for in, want := range tests {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}
