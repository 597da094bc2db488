package api

import (
	"math"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// The JSON shapes of the API. Field names and types follow the seed; fields
// beyond it are additive (see the contract). Unknown numbers are null.

type accordJSON struct {
	Name     string  `json:"name"`
	Strength float64 `json:"strength"`
	Color    string  `json:"color"`
}

type noteJSON struct {
	Name      string  `json:"name"`
	Intensity float64 `json:"intensity"`
}

type notesJSON struct {
	Top      []noteJSON `json:"top"`
	Middle   []noteJSON `json:"middle"`
	Base     []noteJSON `json:"base"`
	Unplaced []noteJSON `json:"unplaced"`
}

type perfumerRef struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// listItem is a perfume in data[] of /api/perfumes and perfumer pages.
type listItem struct {
	ID                        string       `json:"id"`
	Slug                      string       `json:"slug"`
	Name                      string       `json:"name"`
	Brand                     string       `json:"brand"`
	Year                      *int         `json:"year"`
	Rating                    *float64     `json:"rating"`
	RatingCount               int          `json:"ratingCount"`
	Concentration             *string      `json:"concentration"`
	Gender                    string       `json:"gender"`
	PriceTier                 *string      `json:"priceTier"`
	Image                     string       `json:"image"`
	ImageTransparent          string       `json:"imageTransparent"`
	ImageTransparentAvailable bool         `json:"imageTransparentAvailable"`
	BuyURL                    string       `json:"buyUrl"`
	Accords                   []accordJSON `json:"accords"`
}

// detail is GET /api/perfumes/{slug}: a flat object, no data wrapper.
type detail struct {
	listItem
	BrandSlug       string           `json:"brandSlug"`
	Description     string           `json:"description"`
	Family          *string          `json:"family"`
	Longevity       *float64         `json:"longevity"`
	Sillage         *float64         `json:"sillage"`
	Notes           notesJSON        `json:"notes"`
	Seasons         catalog.Seasons  `json:"seasons"`
	DayNight        catalog.DayNight `json:"dayNight"`
	SimilarPerfumes []similarItem    `json:"similarPerfumes"`
	Perfumers       []perfumerRef    `json:"perfumers"`
	SeasonRanking   []rankedJSON     `json:"seasonRanking"`
	TimeRanking     []rankedJSON     `json:"timeRanking"`
	Popularity      popularityJSON   `json:"popularity"`
}

type rankedJSON struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

type popularityJSON struct {
	Score       float64 `json:"score"`
	RatingCount int     `json:"ratingCount"`
	Rank        int     `json:"rank"`
}

// similarItem is an element of /similar's data and of similarPerfumes.
type similarItem struct {
	ID                        string       `json:"id"`
	Slug                      string       `json:"slug"`
	Name                      string       `json:"name"`
	Brand                     string       `json:"brand"`
	MatchScore                float64      `json:"matchScore"`
	Image                     string       `json:"image"`
	ImageTransparent          string       `json:"imageTransparent"`
	ImageTransparentAvailable bool         `json:"imageTransparentAvailable"`
	SharedAccords             []accordJSON `json:"sharedAccords"`
	SharedNotes               []string     `json:"sharedNotes"`
	Accords                   []accordJSON `json:"accords"`
}

// dupeItem adds priceTier and rating to a similar item.
type dupeItem struct {
	similarItem
	PriceTier string   `json:"priceTier"`
	Rating    *float64 `json:"rating"`
}

type sourceRef struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Brand string `json:"brand"`
}

type dupeSource struct {
	sourceRef
	Image            string   `json:"image"`
	ImageTransparent string   `json:"imageTransparent"`
	Rating           *float64 `json:"rating"`
	PriceTier        *string  `json:"priceTier"`
}

type matchItem struct {
	ID          string       `json:"id"`
	Slug        string       `json:"slug"`
	Name        string       `json:"name"`
	Brand       string       `json:"brand"`
	MatchScore  float64      `json:"matchScore"`
	Rating      *float64     `json:"rating"`
	RatingCount int          `json:"ratingCount"`
	Image       string       `json:"image"`
	Accords     []accordJSON `json:"accords"`
}

type countJSON struct {
	Name  string `json:"name"`
	Slug  string `json:"slug,omitempty"`
	Count int    `json:"count"`
	Color string `json:"color,omitempty"`
}

// render turns index entries into JSON shapes; it knows the service's
// public URLs.
type render struct {
	urls URLs
}

func optInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func optFloat(f float64) *float64 {
	if f == 0 {
		return nil
	}
	return &f
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (rd render) accords(e *index.Entry) []accordJSON {
	return rd.accordList(e.Accords)
}

func (rd render) accordList(as []catalog.AccordStrength) []accordJSON {
	out := make([]accordJSON, len(as))
	for i, a := range as {
		out[i] = accordJSON{Name: a.Name, Strength: a.Strength, Color: rd.urls.AccordColor(a.Name)}
	}
	return out
}

func (rd render) listItem(e *index.Entry) listItem {
	return listItem{
		ID:                        e.Slug,
		Slug:                      e.Slug,
		Name:                      e.Name,
		Brand:                     e.Brand,
		Year:                      optInt(e.Year),
		Rating:                    optFloat(e.Rating),
		RatingCount:               e.RatingCount,
		Concentration:             optString(e.Concentration),
		Gender:                    string(e.Gender),
		PriceTier:                 optString(string(e.PriceTier)),
		Image:                     rd.urls.Image(e.ID),
		ImageTransparent:          rd.urls.Transparent(e.ID),
		ImageTransparentAvailable: rd.urls.TransparentAvailable(e.ID),
		BuyURL:                    rd.urls.Buy(e.Slug),
		Accords:                   rd.accords(e),
	}
}

func (rd render) list(es []*index.Entry) []listItem {
	out := make([]listItem, len(es))
	for i, e := range es {
		out[i] = rd.listItem(e)
	}
	return out
}

// notes gives each note an intensity: notes are listed in the source in
// order of prominence, so the first note of a layer is 100 and the last
// falls linearly to 50 (a single note is 100).
func notes(layer []string) []noteJSON {
	out := make([]noteJSON, len(layer))
	for i, n := range layer {
		in := 100.0
		if len(layer) > 1 {
			in = 100 - 50*float64(i)/float64(len(layer)-1)
		}
		out[i] = noteJSON{Name: n, Intensity: math.Round(in*10) / 10}
	}
	return out
}

func (rd render) detail(e *index.Entry, similar []index.Scored) detail {
	d := detail{
		listItem:    rd.listItem(e),
		BrandSlug:   e.BrandSlug,
		Description: e.Description,
		Family:      optString(e.Family),
		Longevity:   optFloat(e.Longevity),
		Sillage:     optFloat(e.Sillage),
		Notes: notesJSON{
			Top: notes(e.Notes.Top), Middle: notes(e.Notes.Middle),
			Base: notes(e.Notes.Base), Unplaced: notes(e.Notes.Unplaced),
		},
		Seasons:         e.Seasons,
		DayNight:        e.DayNight,
		SimilarPerfumes: rd.similar(similar),
		Perfumers:       make([]perfumerRef, len(e.Perfumers)),
		SeasonRanking:   ranked(e.SeasonRanking),
		TimeRanking:     ranked(e.TimeRanking),
		Popularity:      popularityJSON{Score: e.Popularity.Score, RatingCount: e.Popularity.RatingCount, Rank: e.Popularity.Rank},
	}
	for i, name := range e.Perfumers {
		d.Perfumers[i] = perfumerRef{Name: name, Slug: search.Slugify(name)}
	}
	return d
}

func ranked(rs []index.Ranked) []rankedJSON {
	out := make([]rankedJSON, len(rs))
	for i, r := range rs {
		out[i] = rankedJSON{Name: r.Name, Score: r.Score}
	}
	return out
}

func (rd render) similarItem(s index.Scored) similarItem {
	shared := s.SharedNotes
	if shared == nil {
		shared = []string{}
	}
	return similarItem{
		ID: s.Slug, Slug: s.Slug, Name: s.Name, Brand: s.Brand,
		MatchScore:                s.Score,
		Image:                     rd.urls.Image(s.ID),
		ImageTransparent:          rd.urls.Transparent(s.ID),
		ImageTransparentAvailable: rd.urls.TransparentAvailable(s.ID),
		SharedAccords:             rd.accordList(s.SharedAccords),
		SharedNotes:               shared,
		Accords:                   rd.accords(s.Entry),
	}
}

func (rd render) similar(ss []index.Scored) []similarItem {
	out := make([]similarItem, len(ss))
	for i, s := range ss {
		out[i] = rd.similarItem(s)
	}
	return out
}

func (rd render) dupes(ss []index.Scored) []dupeItem {
	out := make([]dupeItem, len(ss))
	for i, s := range ss {
		out[i] = dupeItem{similarItem: rd.similarItem(s), PriceTier: string(s.PriceTier), Rating: optFloat(s.Rating)}
	}
	return out
}

func (rd render) matches(ss []index.Scored) []matchItem {
	out := make([]matchItem, len(ss))
	for i, s := range ss {
		out[i] = matchItem{
			ID: s.Slug, Slug: s.Slug, Name: s.Name, Brand: s.Brand,
			MatchScore: s.Score, Rating: optFloat(s.Rating), RatingCount: s.RatingCount,
			Image: rd.urls.Image(s.ID), Accords: rd.accords(s.Entry),
		}
	}
	return out
}

func ref(e *index.Entry) sourceRef {
	return sourceRef{ID: e.Slug, Slug: e.Slug, Name: e.Name, Brand: e.Brand}
}

func counts(cs []index.Count) []countJSON {
	out := make([]countJSON, len(cs))
	for i, c := range cs {
		out[i] = countJSON{Name: c.Name, Slug: c.Slug, Count: c.Count, Color: c.Color}
	}
	return out
}
