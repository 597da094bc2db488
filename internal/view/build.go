package view

import (
	"math"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// NoteIntensity is the intensity (0–100, one decimal) of the i-th of n
// notes of a pyramid layer. Sources list a layer's notes in order of
// prominence, so the first is 100 and the last falls linearly to 50; a
// single note is 100.
func NoteIntensity(i, n int) float64 {
	in := 100.0
	if n > 1 {
		in = 100 - 50*float64(i)/float64(n-1)
	}
	return math.Round(in*10) / 10
}

// OptInt is n, or nil when it is 0 (unknown).
func OptInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// OptFloat is f, or nil when it is 0 (unknown).
func OptFloat(f float64) *float64 {
	if f == 0 {
		return nil
	}
	return &f
}

// OptString is s, or nil when it is empty (unknown).
func OptString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Accords is a list of accords with their colours.
func (u Builder) Accords(as []catalog.AccordStrength) []Accord {
	out := make([]Accord, len(as))
	for i, a := range as {
		out[i] = Accord{Name: a.Name, Strength: a.Strength, Color: u.AccordColor(a.Name)}
	}
	return out
}

// Perfume is e as a list item.
func (u Builder) Perfume(e *index.Entry) Perfume {
	return Perfume{
		ID:                        e.Slug(),
		Slug:                      e.Slug(),
		Name:                      e.Name(),
		Brand:                     e.Brand(),
		Year:                      OptInt(e.Year),
		Rating:                    OptFloat(e.Rating),
		RatingCount:               e.RatingCount,
		Concentration:             OptString(e.Concentration()),
		Gender:                    string(e.Gender()),
		PriceTier:                 OptString(string(e.PriceTier())),
		Image:                     u.Image(e.ID),
		ImageTransparent:          u.Transparent(e.ID),
		ImageTransparentAvailable: u.TransparentAvailable(e.ID),
		BuyURL:                    u.Buy(e.Slug()),
		Accords:                   u.Accords(e.Accords().Slice()),
	}
}

// Perfumes is es as list items.
func (u Builder) Perfumes(es []*index.Entry) []Perfume {
	out := make([]Perfume, len(es))
	for i, e := range es {
		out[i] = u.Perfume(e)
	}
	return out
}

// notes gives each note of a layer its intensity.
func notes(layer []string) []Note {
	out := make([]Note, len(layer))
	for i, n := range layer {
		out[i] = Note{Name: n, Intensity: NoteIntensity(i, len(layer))}
	}
	return out
}

// Detail is e in full, with its first similar perfumes.
func (u Builder) Detail(e *index.Entry, similar []index.Scored) Detail {
	pyr, perfumers := e.Notes().Pyramid(), e.Perfumers().Slice()
	d := Detail{
		Perfume:     u.Perfume(e),
		BrandSlug:   e.BrandSlug(),
		Description: e.Description(),
		Family:      OptString(e.Family()),
		Longevity:   OptFloat(e.Longevity),
		Sillage:     OptFloat(e.Sillage),
		Notes: Notes{
			Top: notes(pyr.Top), Middle: notes(pyr.Middle),
			Base: notes(pyr.Base), Unplaced: notes(pyr.Unplaced),
		},
		Seasons:         e.Seasons,
		DayNight:        e.DayNight,
		SimilarPerfumes: u.SimilarItems(similar),
		Perfumers:       make([]PerfumerRef, len(perfumers)),
		SeasonRanking:   ranked(e.SeasonRanking()),
		TimeRanking:     ranked(e.TimeRanking()),
		Popularity:      Popularity{Score: e.Popularity.Score, RatingCount: e.Popularity.RatingCount, Rank: e.Popularity.Rank},
	}
	for i, name := range perfumers {
		d.Perfumers[i] = PerfumerRef{Name: name, Slug: u.PerfumerSlug(name)}
	}
	return d
}

func ranked(rs []index.Ranked) []Ranked {
	out := make([]Ranked, len(rs))
	for i, r := range rs {
		out[i] = Ranked{Name: r.Name, Score: r.Score}
	}
	return out
}

// SimilarItem is s as a similar perfume.
func (u Builder) SimilarItem(s index.Scored) Similar {
	shared := s.SharedNotes
	if shared == nil {
		shared = []string{}
	}
	return Similar{
		ID: s.Slug(), Slug: s.Slug(), Name: s.Name(), Brand: s.Brand(),
		MatchScore:                s.Score,
		Image:                     u.Image(s.ID),
		ImageTransparent:          u.Transparent(s.ID),
		ImageTransparentAvailable: u.TransparentAvailable(s.ID),
		SharedAccords:             u.Accords(s.SharedAccords.Slice()),
		SharedNotes:               shared,
		Accords:                   u.Accords(s.Accords().Slice()),
	}
}

// SimilarItems is ss as similar perfumes.
func (u Builder) SimilarItems(ss []index.Scored) []Similar {
	out := make([]Similar, len(ss))
	for i, s := range ss {
		out[i] = u.SimilarItem(s)
	}
	return out
}

// DupeItems is ss as cheaper alternatives.
func (u Builder) DupeItems(ss []index.Scored) []Dupe {
	out := make([]Dupe, len(ss))
	for i, s := range ss {
		out[i] = Dupe{Similar: u.SimilarItem(s), PriceTier: string(s.PriceTier()), Rating: OptFloat(s.Rating)}
	}
	return out
}

// Source names e as the perfume a list is about.
func Source(e *index.Entry) SourceRef {
	return SourceRef{ID: e.Slug(), Slug: e.Slug(), Name: e.Name(), Brand: e.Brand()}
}

// SimilarList is the answer of /similar for e.
func (u Builder) SimilarList(e *index.Entry, items []index.Scored, limit int) SimilarList {
	return SimilarList{Source: Source(e), Data: u.SimilarItems(items), Total: len(items), Limit: limit}
}

// DupeList is the answer of /dupes for e.
func (u Builder) DupeList(e *index.Entry, items []index.Scored, limit int) DupeList {
	src := DupeSource{
		SourceRef:        Source(e),
		Image:            u.Image(e.ID),
		ImageTransparent: u.Transparent(e.ID),
		Rating:           OptFloat(e.Rating),
		PriceTier:        OptString(string(e.PriceTier())),
	}
	return DupeList{Source: src, Data: u.DupeItems(items), Total: len(items), Limit: limit}
}

// Matches is ss as match items.
func (u Builder) Matches(ss []index.Scored) []Match {
	out := make([]Match, len(ss))
	for i, s := range ss {
		out[i] = Match{
			ID: s.Slug(), Slug: s.Slug(), Name: s.Name(), Brand: s.Brand(),
			MatchScore: s.Score, Rating: OptFloat(s.Rating), RatingCount: s.RatingCount,
			Image: u.Image(s.ID), Accords: u.Accords(s.Accords().Slice()),
		}
	}
	return out
}

// MatchList is the answer of a match query q whose result is res.
func (u Builder) MatchList(q index.MatchQuery, res index.MatchResult) MatchList {
	f := MatchFilters{
		Accords:         make([]string, len(res.Accords)),
		AccordStrengths: make(map[string]float64, len(res.Accords)),
		Notes:           res.Notes,
		Gender:          OptString(string(q.Gender)),
		Season:          OptString(q.Season),
		Time:            OptString(q.Time),
	}
	if f.Notes == nil {
		f.Notes = []string{}
	}
	for i, a := range res.Accords {
		f.Accords[i] = a.Name
		f.AccordStrengths[a.Name] = a.Strength
	}
	return MatchList{Data: u.Matches(res.Items), Filters: f, Total: res.Total, Page: res.Page, Pages: res.Pages, Limit: res.Limit}
}

// Page is pg as an answer page.
func (u Builder) Page(pg index.Page) Page {
	return Page{Data: u.Perfumes(pg.Entries), Total: pg.Total, Page: pg.Page, Pages: pg.Pages, Limit: pg.Limit}
}

// Perfumer is perfumer c with a page of their perfumes.
func (u Builder) Perfumer(c index.Count, pg index.Page) Perfumer {
	return Perfumer{Name: c.Name, Slug: c.Slug, Count: c.Count, Perfumes: u.Page(pg)}
}

// Counts is cs as count entries.
func Counts(cs []index.Count) []Count {
	out := make([]Count, len(cs))
	for i, c := range cs {
		out[i] = Count{Name: c.Name, Slug: c.Slug, Count: c.Count, Color: c.Color}
	}
	return out
}

// SiteSearch is es as the answer of the site search.
func (u Builder) SiteSearch(es []*index.Entry) SiteSearch {
	out := SiteSearch{Perfumes: make([]SiteSearchItem, len(es))}
	for i, e := range es {
		out.Perfumes[i] = SiteSearchItem{Name: e.Name(), Brand: e.Brand(), Slug: e.Slug(),
			Image: u.Image(e.ID), ImageTransparent: u.Transparent(e.ID)}
	}
	return out
}
