package search

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		k    int
		want int
	}{
		{"sauvage", "sauvage", 2, 0},
		{"sauvag", "sauvage", 2, 1},
		{"savage", "sauvage", 2, 1},
		{"suavage", "sauvage", 2, 1}, // adjacent letters swapped: one edit
		{"gautier", "gaultier", 2, 1},
		{"channel", "chanel", 2, 1},
		{"baccarrat", "baccarat", 2, 1},
		{"rougge", "rouge", 2, 1},
		{"hermes", "parfum", 2, 3}, // beyond k: k+1
		{"abc", "abcdef", 2, 3},
		{"", "ab", 2, 2},
		{"héros", "heros", 2, 1},
		{"ca", "abc", 3, 3}, // OSA, not full Damerau: no edit of a swapped pair
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b, tt.k); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.k, got, tt.want)
		}
	}
}

// naiveOSA is the textbook full-matrix optimal string alignment distance.
func naiveOSA(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func FuzzDistance(f *testing.F) {
	f.Add("sauvage", "savuage", 2)
	f.Add("héros", "heros", 1)
	f.Add("", "", 0)
	f.Fuzz(func(t *testing.T, a, b string, k int) {
		k = ((k % 4) + 4) % 4
		if len(a) > 80 || len(b) > 80 {
			return
		}
		want := min(naiveOSA([]rune(a), []rune(b)), k+1)
		if got := Distance(a, b, k); got != want {
			t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, k, got, want)
		}
	})
}

func TestLetterMaskFilter(t *testing.T) {
	// One edit changes at most two bits, so the filter never rejects a
	// word within reach.
	pairs := [][2]string{{"sauvage", "savage"}, {"gautier", "gaultier"}, {"rose", "rise"}, {"ab", "ba"}}
	for _, p := range pairs {
		d := Distance(p[0], p[1], 5)
		if diff := popcount(letterMask(p[0]) ^ letterMask(p[1])); diff > 2*d {
			t.Errorf("%q/%q: %d bits differ at distance %d", p[0], p[1], diff, d)
		}
	}
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestSuggest(t *testing.T) {
	names := []string{"woody", "warm spicy", "vanilla", "white floral", "sweet", "aromatic", "Tonka Bean", "Vanille"}
	tests := []struct {
		word string
		want []string
	}{
		{"wody", []string{"woody"}},
		{"vanila", []string{"vanilla", "Vanille"}},
		{"tonka", []string{"Tonka Bean"}},
		{"floral", []string{"white floral"}},
		{"zzzzzz", []string{}},
		{"", nil},
	}
	for _, tt := range tests {
		got := Suggest(tt.word, names, 3)
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("Suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
