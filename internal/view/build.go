package view

import (
	"cmp"
	"math"
	"slices"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/describe"
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

// MatchList is the answer of a match whose filters echo e and whose
// result is res.
func (u Builder) MatchList(e MatchEcho, res index.MatchResult) MatchList {
	f := MatchFilters{
		Accords:         make([]string, len(e.Accords)),
		AccordStrengths: make(map[string]float64, len(e.Accords)),
		Notes:           e.Notes,
		Gender:          OptString(e.Gender),
		Season:          OptString(e.Season),
		Time:            OptString(e.Time),
	}
	for i, a := range e.Accords {
		f.Accords[i] = a.Name
		f.AccordStrengths[a.Name] = a.Strength
	}
	if e.Described {
		f.DescribedFilters = &DescribedFilters{Excluded: e.Excluded, Brand: OptString(e.Brand), Ignored: e.Ignored}
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

// MatchEcho is what a match answer's filters echo: the structured
// filters with their canonical names and, for a described match (one
// with q, an exclusion or a sort), what the description added, what was
// excluded, the brand and the words not understood.
type MatchEcho struct {
	Accords              []index.AccordWant
	Notes                []string
	Gender, Season, Time string
	Described            bool
	Excluded             []string
	Brand                string
	Ignored              []string
}

// EchoMatch is the echo of the structured query q (before the reading r
// was applied; r nil when there is no description), whose result is res,
// with excluded the canonical names of q's exclusions. described says
// whether the answer carries the described members.
func EchoMatch(q index.MatchQuery, res index.MatchResult, r *describe.Reading, excluded []string, described bool) MatchEcho {
	e := MatchEcho{Accords: res.Accords, Notes: res.Notes, Gender: string(q.Gender), Season: q.Season, Time: q.Time, Described: described}
	if e.Notes == nil {
		e.Notes = []string{}
	}
	if !described {
		return e
	}
	e.Excluded, e.Ignored = append([]string{}, excluded...), []string{}
	if r == nil {
		return e
	}
	e.Accords = slices.Clone(e.Accords)
	for _, a := range r.Accords {
		if !slices.ContainsFunc(e.Accords, func(w index.AccordWant) bool { return w.Name == a }) {
			e.Accords = append(e.Accords, index.AccordWant{Name: a, Strength: 100})
		}
	}
	for _, n := range r.Notes {
		if !slices.Contains(e.Notes, n) {
			e.Notes = append(slices.Clip(e.Notes), n)
		}
	}
	for _, x := range r.Excluded {
		if !slices.Contains(e.Excluded, x) {
			e.Excluded = append(e.Excluded, x)
		}
	}
	e.Gender = cmp.Or(e.Gender, string(r.Gender))
	e.Season = cmp.Or(e.Season, r.Season)
	e.Time = cmp.Or(e.Time, r.Time)
	e.Brand = r.Brand
	e.Ignored = append(e.Ignored, r.Ignored...)
	return e
}

// DescribedMatch runs the structured query q with the description text
// (none when empty) applied, and returns the result with its echo. A
// description that understands nothing, with nothing else asked, matches
// nothing rather than everything.
func DescribedMatch(ix *index.Index, text string, q index.MatchQuery) (index.MatchResult, MatchEcho, error) {
	var reading *describe.Reading
	run := q
	if text != "" {
		rd := describe.For(ix).Parse(text)
		reading, run = &rd, rd.Apply(q)
	}
	var res index.MatchResult
	var err error
	if reading != nil && !reading.Understood() && len(q.Accords)+len(q.Notes) == 0 && q.Gender == "" && q.Season == "" && q.Time == "" {
		res = index.MatchResult{Items: []index.Scored{}, Page: q.Page, Limit: q.Limit, Accords: []index.AccordWant{}, Notes: []string{}}
	} else if res, err = ix.Match(run); err != nil {
		return res, MatchEcho{}, err
	}
	var excluded []string
	for _, n := range q.Exclude.Accords {
		c, _ := ix.CanonicalAccord(n)
		excluded = append(excluded, c)
	}
	for _, n := range q.Exclude.Notes {
		c, _ := ix.CanonicalNote(n)
		excluded = append(excluded, c)
	}
	described := text != "" || q.Sort != "" || len(excluded) > 0
	return res, EchoMatch(q, res, reading, excluded, described), nil
}

// Always returns e with the described members, empty where nothing was
// described: for a surface whose answers always carry them (MCP, whose
// output schema names them).
func (e MatchEcho) Always() MatchEcho {
	e.Described = true
	if e.Excluded == nil {
		e.Excluded = []string{}
	}
	if e.Ignored == nil {
		e.Ignored = []string{}
	}
	return e
}

// RecommendList is the answer of a recommendation whose result is res.
func (u Builder) RecommendList(res index.RecommendResult) RecommendList {
	out := RecommendList{Source: make([]SourceRef, len(res.Source)), Data: make([]Recommendation, len(res.Items)),
		Total: res.Total, Page: res.Page, Pages: res.Pages, Limit: res.Limit}
	for i, e := range res.Source {
		out.Source[i] = Source(e)
	}
	for i, it := range res.Items {
		r := Recommendation{
			ID: it.Slug(), Slug: it.Slug(), Name: it.Name(), Brand: it.Brand(),
			MatchScore: it.Score, Rating: OptFloat(it.Rating), RatingCount: it.RatingCount,
			Image: u.Image(it.ID), ImageTransparent: u.Transparent(it.ID), Accords: u.Accords(it.Accords().Slice()),
			Reasons: make([]Reason, len(it.Reasons)),
		}
		for j, why := range it.Reasons {
			notes := why.Notes
			if notes == nil {
				notes = []string{}
			}
			r.Reasons[j] = Reason{Perfume: Source(why.Liked), Accords: u.Accords(why.Accords.Slice()), Notes: notes}
		}
		out.Data[i] = r
	}
	return out
}
