package site

import (
	"math"
	"slices"
	"testing"
)

// TestMeter: a mean vote takes the word of the step nearest it and fills
// its scale from the first step (1) to the value; a value off the scale
// is held to it.
func TestMeter(t *testing.T) {
	for _, tt := range []struct {
		value float64
		words []string
		word  string
		fill  float64
	}{
		{3.59, longevityWords, "long-lasting", 64.75},
		{1, longevityWords, "very weak", 0},
		{5, longevityWords, "eternal", 100},
		{2.49, longevityWords, "weak", 37.25},
		{2.55, sillageWords, "strong", 51.666666666666667},
		{1.2, sillageWords, "intimate", 6.666666666666667},
		{0, sillageWords, "intimate", 0},
		{9, sillageWords, "enormous", 100},
	} {
		m := newMeter("x", tt.value, tt.words)
		if m.Word != tt.word || math.Abs(m.Fill-tt.fill) > 1e-9 || m.Max != len(tt.words) || m.Value != tt.value {
			t.Errorf("newMeter(%v, %q) = %+v, want %q filled %v", tt.value, tt.words, m, tt.word, tt.fill)
		}
		at := slices.IndexFunc(m.Steps, func(s step) bool { return s.At })
		if len(m.Steps) != len(tt.words) || at < 0 || m.Steps[at].Word != tt.word {
			t.Errorf("newMeter(%v): steps %+v", tt.value, m.Steps)
		}
	}
}

// TestStarWidth: the rating fills its share of the five stars' 120 units.
func TestStarWidth(t *testing.T) {
	for r, want := range map[float64]string{3.86: "92.6", 5: "120", 0: "0", 1: "24", 6: "120", -1: "0"} {
		if got := starWidth(r); got != want {
			t.Errorf("starWidth(%v) = %q, want %q", r, got, want)
		}
	}
}

// TestEdge: an accord bar's edge is its colour darkened, so that pale
// colours stand out from the track; anything but #RRGGBB is its own edge.
func TestEdge(t *testing.T) {
	for c, want := range map[string]string{
		"#FFFAE0": "#9e9b8b", // vanilla-like cream
		"#ffffff": "#9e9e9e",
		"#000000": "#000000",
		"#83C928": "#517d19",
		"red":     "red",
		"#12345":  "#12345",
		"#zzzzzz": "#zzzzzz",
		"":        "",
	} {
		if got := edge(c); got != want {
			t.Errorf("edge(%q) = %q, want %q", c, got, want)
		}
	}
}
