package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// outRow is one line as WriteJSONL writes it: the bundled catalogue's
// field order, null for unknown values, seasons and day/night as fractions
// of 1.
type outRow struct {
	ID            int64    `json:"fragranticaId"`
	Name          string   `json:"name"`
	Brand         string   `json:"brand"`
	Gender        string   `json:"gender"`
	Year          *int     `json:"year"`
	Rating        *float64 `json:"rating"`
	RatingCount   int      `json:"ratingCount"`
	Longevity     *float64 `json:"longevity"`
	Sillage       *float64 `json:"sillage"`
	Seasons       seasons  `json:"seasons"`
	DayNight      dayNight `json:"dayNight"`
	Accords       []accord `json:"accords"`
	Notes         notes    `json:"notes"`
	Perfumers     []string `json:"perfumers"`
	Description   *string  `json:"description"`
	Family        *string  `json:"family"`
	Concentration *string  `json:"concentration"`
	LowVotes      bool     `json:"lowVotes"`
}

// lowVoteLimit is the rating count under which the catalogue flags a
// perfume's averages as resting on few votes.
const lowVoteLimit = 50

func toOutRow(p *catalog.Perfume) outRow {
	frac := func(v float64) float64 { return math.Round(v*10) / 1000 }
	row := outRow{
		ID: p.ID, Name: p.Name, Brand: p.Brand, Gender: string(p.Gender),
		Year: nonZero(p.Year), Rating: nonZero(p.Rating), RatingCount: p.RatingCount,
		Longevity: nonZero(p.Longevity), Sillage: nonZero(p.Sillage),
		Seasons:  seasons{frac(p.Seasons.Winter), frac(p.Seasons.Spring), frac(p.Seasons.Summer), frac(p.Seasons.Fall)},
		DayNight: dayNight{frac(p.DayNight.Day), frac(p.DayNight.Night)},
		Accords:  make([]accord, len(p.Accords)),
		Notes: notes{Top: orEmpty(p.Notes.Top), Middle: orEmpty(p.Notes.Middle),
			Base: orEmpty(p.Notes.Base), Unplaced: p.Notes.Unplaced},
		Perfumers:   p.Perfumers,
		Description: nonZero(p.Description), Family: nonZero(p.Family),
		Concentration: nonZero(p.Concentration),
		LowVotes:      p.RatingCount < lowVoteLimit,
	}
	for i, a := range p.Accords {
		row.Accords[i] = accord(a)
	}
	return row
}

func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Generate writes n synthetic perfumes as JSON Lines, drawn from the
// distributions of sample (normally the bundled catalogue): names made of
// real name words with real name lengths, brands and genders in their real
// proportions, and accord profiles, note pyramids, ratings, years,
// performance and season votes each taken from a randomly chosen real
// perfume, accord strengths jittered. Ids run upwards from above the
// sample's largest. The same seed and sample give the same output. It is
// meant for import and load tests, not for display.
func Generate(w io.Writer, n int, seed int64, sample []catalog.Perfume) error {
	if n < 0 {
		return fmt.Errorf("generate: negative count %d", n)
	}
	m, err := newModel(sample)
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_f4a6_7a4c_e000))
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := 0; i < n; i++ {
		p := m.perfume(rng, m.maxID+1+int64(i))
		if err := enc.Encode(toOutRow(&p)); err != nil {
			return fmt.Errorf("generate perfume %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	return nil
}

// model holds the pools Generate draws from. Pools keep repeats, so a
// uniform draw from a pool follows the real frequency.
type model struct {
	sample   []catalog.Perfume
	words    []string
	nameLens []int
	maxID    int64
}

func newModel(sample []catalog.Perfume) (*model, error) {
	m := &model{sample: sample}
	for i := range sample {
		ws := strings.Fields(sample[i].Name)
		if len(ws) == 0 {
			continue
		}
		m.words = append(m.words, ws...)
		m.nameLens = append(m.nameLens, len(ws))
		m.maxID = max(m.maxID, sample[i].ID)
	}
	if len(m.words) == 0 {
		return nil, errors.New("sample has no named perfumes")
	}
	return m, nil
}

func (m *model) pick(rng *rand.Rand) *catalog.Perfume {
	return &m.sample[rng.IntN(len(m.sample))]
}

// perfume draws one synthetic perfume with the given id.
func (m *model) perfume(rng *rand.Rand, id int64) catalog.Perfume {
	who := m.pick(rng)
	votes, perf, season, extra := m.pick(rng), m.pick(rng), m.pick(rng), m.pick(rng)
	p := catalog.Perfume{
		ID: id, Name: m.name(rng), Brand: who.Brand, Gender: who.Gender,
		Year:   m.pick(rng).Year,
		Rating: votes.Rating, RatingCount: votes.RatingCount,
		Longevity: perf.Longevity, Sillage: perf.Sillage,
		Seasons: season.Seasons, DayNight: season.DayNight,
		Accords:   jitterAccords(rng, m.pick(rng).Accords),
		Notes:     m.pick(rng).Notes,
		Perfumers: extra.Perfumers, Family: extra.Family,
	}
	p.Concentration = Concentration(p.Name, nil)
	return p
}

// name joins real name words, avoiding the same word twice in a row.
func (m *model) name(rng *rand.Rand) string {
	k := m.nameLens[rng.IntN(len(m.nameLens))]
	ws := make([]string, 0, k)
	for len(ws) < k {
		w := m.words[rng.IntN(len(m.words))]
		if len(ws) > 0 && strings.EqualFold(ws[len(ws)-1], w) {
			continue
		}
		ws = append(ws, w)
	}
	return strings.Join(ws, " ")
}

// jitterAccords copies a real accord profile with each strength moved by
// up to ±10, then rescales so the strongest is 100 again.
func jitterAccords(rng *rand.Rand, src []catalog.AccordStrength) []catalog.AccordStrength {
	out := make([]catalog.AccordStrength, len(src))
	top := 0.0
	for i, a := range src {
		s := math.Min(100, math.Max(1, a.Strength+rng.Float64()*20-10))
		out[i] = catalog.AccordStrength{Name: a.Name, Strength: s}
		top = math.Max(top, s)
	}
	for i := range out {
		out[i].Strength = math.Max(1, math.Round(out[i].Strength*100/top))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Strength > out[j].Strength })
	return out
}
