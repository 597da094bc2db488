package site

import (
	"math"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/web"
)

// The perfume page reads the community's votes for people: the rating as
// stars, longevity and sillage as meters on their scales with the scale's
// words, and accord bars with an edge that keeps a pale colour visible.

// meter is a mean vote shown on its scale: "long-lasting, 3.59 of 5".
type meter struct {
	// ID names the meter's label in the page ("longevity").
	ID string
	// Value is the mean vote, on Min to Max.
	Value    float64
	Min, Max int
	// Word is the scale's word for the step nearest the value.
	Word string
	// Fill is the share of the scale up to the value, 0–100.
	Fill float64
	// Steps are the scale's words from Min to Max; At marks Word's.
	Steps []step
}

type step struct {
	Word string
	At   bool
}

// The words of the scales people vote on (as the data's README gives
// them: longevity 1 = very weak … 5 = eternal, sillage 1 = intimate … 4 =
// enormous).
var (
	longevityWords = []string{"very weak", "weak", "moderate", "long-lasting", "eternal"}
	sillageWords   = []string{"intimate", "moderate", "strong", "enormous"}
)

// newMeter places value on the scale whose steps, from 1, are words.
func newMeter(id string, value float64, words []string) *meter {
	m := &meter{ID: id, Value: value, Min: 1, Max: len(words)}
	v := min(max(value, 1), float64(m.Max))
	near := int(math.Round(v)) - 1
	m.Word = words[near]
	m.Fill = (v - 1) / float64(m.Max-1) * 100
	for i, w := range words {
		m.Steps = append(m.Steps, step{Word: w, At: i == near})
	}
	return m
}

// starWidth is how much of the five stars a rating fills, in the units of
// the stars' drawing (120 wide): 3.86 of 5 fills 92.6.
func starWidth(rating float64) string {
	return web.Decimal(min(max(rating, 0), 5)/5*120, 1)
}

// edge is the darker edge of an accord bar of colour c ("#RRGGBB"): pale
// colours (vanilla, almond, coconut) would vanish on the bar's track
// without it. A colour of another form is its own edge.
func edge(c string) string {
	if len(c) != 7 || c[0] != '#' {
		return c
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return c
	}
	const keep = 0.62 // of each channel: dark enough on white, still the colour
	b := []byte{'#'}
	for _, shift := range []uint{16, 8, 0} {
		ch := byte(float64(v>>shift&0xff)*keep + 0.5)
		b = append(b, "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&15])
	}
	return string(b)
}
