package api

import (
	"math"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// The JSON answers of the API, appended field by field. Field names, order
// and types follow the seed and the contract (fields beyond the seed are
// additive); unknown numbers are null. The reflection-based shapes these
// encoders replace live on in reference_test.go, which checks that both
// give the same bytes for every perfume of the bundled catalogue: profiles
// showed encoding/json's reflection and the intermediate structs (with
// their image URL strings and accord slices) as the largest cost of the
// list and detail answers.

// render turns index entries into JSON; it knows the service's public URLs.
// It is shared by all requests and never changed after New.
type render struct {
	urls URLs
}

// encoder encodes one answer. imageTransparentAvailable is the one member
// whose value can change while a catalogue is served (as transparent images
// are made), so the encoder leaves a hole where each goes: the encoded
// answer can be kept, and the holes filled with live values whenever it is
// written (see frozen).
type encoder struct {
	*render
	holes []hole
}

// accordList is a list appendAccords writes: a perfume's accords as the
// index stores them, or the ones a result shares with its source.
type accordList interface {
	Len() int
	At(i int) catalog.AccordStrength
}

// sharedAccords is a result's shared accords as an accordList.
type sharedAccords []catalog.AccordStrength

func (s sharedAccords) Len() int                        { return len(s) }
func (s sharedAccords) At(i int) catalog.AccordStrength { return s[i] }

func appendAccords[L accordList](en *encoder, b []byte, as L) []byte {
	b = append(b, '[')
	for i := range as.Len() {
		a := as.At(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, a.Name)
		b = append(b, `,"strength":`...)
		b = appendFloat(b, a.Strength)
		b = append(b, `,"color":`...)
		b = appendString(b, en.urls.AccordColor(a.Name))
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendImages appends the image, imageTransparent and (when available is
// set) imageTransparentAvailable members, each after a comma; the last is a
// hole, filled when the answer is written.
func (en *encoder) appendImages(b []byte, id int64, available bool) []byte {
	b = append(b, `,"image":`...)
	b = en.urls.appendImage(b, id)
	b = append(b, `,"imageTransparent":`...)
	b = en.urls.appendTransparent(b, id)
	if available {
		b = append(b, `,"imageTransparentAvailable":`...)
		en.holes = append(en.holes, hole{pos: len(b), id: id})
	}
	return b
}

// appendIdent appends the id, slug, name and brand members that open every
// perfume object, after the opening brace.
func appendIdent(b []byte, e *index.Entry) []byte {
	b = append(b, `"id":`...)
	b = appendString(b, e.Slug())
	b = append(b, `,"slug":`...)
	b = appendString(b, e.Slug())
	b = append(b, `,"name":`...)
	b = appendString(b, e.Name())
	b = append(b, `,"brand":`...)
	return appendString(b, e.Brand())
}

// appendListFields appends the members of a list item, without braces; a
// detail continues after them.
func (en *encoder) appendListFields(b []byte, e *index.Entry) []byte {
	b = appendIdent(b, e)
	b = append(b, `,"year":`...)
	b = appendOptInt(b, e.Year)
	b = append(b, `,"rating":`...)
	b = appendOptFloat(b, e.Rating)
	b = append(b, `,"ratingCount":`...)
	b = appendInt(b, e.RatingCount)
	b = append(b, `,"concentration":`...)
	b = appendOptString(b, e.Concentration())
	b = append(b, `,"gender":`...)
	b = appendString(b, string(e.Gender()))
	b = append(b, `,"priceTier":`...)
	b = appendOptString(b, string(e.PriceTier()))
	b = en.appendImages(b, e.ID, true)
	b = append(b, `,"buyUrl":`...)
	b = en.urls.appendBuy(b, e.Slug())
	b = append(b, `,"accords":`...)
	return appendAccords(en, b, e.Accords())
}

// appendList appends a perfume list item array.
func (en *encoder) appendList(b []byte, es []*index.Entry) []byte {
	b = append(b, '[')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = en.appendListFields(b, e)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendPage appends {"data":[...],"total","page","pages","limit"}.
func (en *encoder) appendPage(b []byte, pg index.Page) []byte {
	b = append(b, `{"data":`...)
	b = en.appendList(b, pg.Entries)
	return appendPaging(b, pg.Total, pg.Page, pg.Pages, pg.Limit)
}

// appendPaging closes a paged answer with its total, page, pages and limit.
func appendPaging(b []byte, total, page, pages, limit int) []byte {
	b = append(b, `,"total":`...)
	b = appendInt(b, total)
	b = append(b, `,"page":`...)
	b = appendInt(b, page)
	b = append(b, `,"pages":`...)
	b = appendInt(b, pages)
	b = append(b, `,"limit":`...)
	b = appendInt(b, limit)
	return append(b, '}')
}

// appendNotes appends a pyramid layer with intensities: notes are listed
// in the source in order of prominence, so the first note of a layer is 100
// and the last falls linearly to 50 (a single note is 100).
func appendNotes(b []byte, layer index.Names) []byte {
	b = append(b, '[')
	for i := range layer.Len() {
		n := layer.At(i)
		in := 100.0
		if layer.Len() > 1 {
			in = 100 - 50*float64(i)/float64(layer.Len()-1)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, n)
		b = append(b, `,"intensity":`...)
		b = appendFloat(b, math.Round(in*10)/10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendRanked appends a season or time ranking.
func appendRanked(b []byte, rs []index.Ranked) []byte {
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, r.Name)
		b = append(b, `,"score":`...)
		b = appendFloat(b, r.Score)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendDetail appends GET /api/perfumes/{slug}: a flat object, no data
// wrapper, with the first similar perfumes.
func (en *encoder) appendDetail(b []byte, e *index.Entry, similar []index.Scored) []byte {
	b = append(b, '{')
	b = en.appendListFields(b, e)
	b = append(b, `,"brandSlug":`...)
	b = appendString(b, e.BrandSlug())
	b = append(b, `,"description":`...)
	b = appendString(b, e.Description())
	b = append(b, `,"family":`...)
	b = appendOptString(b, e.Family())
	b = append(b, `,"longevity":`...)
	b = appendOptFloat(b, e.Longevity)
	b = append(b, `,"sillage":`...)
	b = appendOptFloat(b, e.Sillage)
	b = append(b, `,"notes":{"top":`...)
	notes := e.Notes()
	b = appendNotes(b, notes.Top)
	b = append(b, `,"middle":`...)
	b = appendNotes(b, notes.Middle)
	b = append(b, `,"base":`...)
	b = appendNotes(b, notes.Base)
	b = append(b, `,"unplaced":`...)
	b = appendNotes(b, notes.Unplaced)
	s, d := e.Seasons, e.DayNight
	b = append(b, `},"seasons":{"winter":`...)
	b = appendFloat(b, s.Winter)
	b = append(b, `,"spring":`...)
	b = appendFloat(b, s.Spring)
	b = append(b, `,"summer":`...)
	b = appendFloat(b, s.Summer)
	b = append(b, `,"fall":`...)
	b = appendFloat(b, s.Fall)
	b = append(b, `},"dayNight":{"day":`...)
	b = appendFloat(b, d.Day)
	b = append(b, `,"night":`...)
	b = appendFloat(b, d.Night)
	b = append(b, `},"similarPerfumes":`...)
	b = en.appendSimilar(b, similar, false)
	b = append(b, `,"perfumers":[`...)
	perfumers := e.Perfumers()
	for i := range perfumers.Len() {
		name := perfumers.At(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, name)
		b = append(b, `,"slug":`...)
		b = appendString(b, en.urls.slug(name))
		b = append(b, '}')
	}
	b = append(b, `],"seasonRanking":`...)
	b = appendRanked(b, e.SeasonRanking())
	b = append(b, `,"timeRanking":`...)
	b = appendRanked(b, e.TimeRanking())
	p := e.Popularity
	b = append(b, `,"popularity":{"score":`...)
	b = appendFloat(b, p.Score)
	b = append(b, `,"ratingCount":`...)
	b = appendInt(b, p.RatingCount)
	b = append(b, `,"rank":`...)
	b = appendInt(b, p.Rank)
	return append(b, `}}`...)
}

// appendSimilarFields appends the members of a similar item, without braces.
func (en *encoder) appendSimilarFields(b []byte, s *index.Scored) []byte {
	b = appendIdent(b, s.Entry)
	b = append(b, `,"matchScore":`...)
	b = appendFloat(b, s.Score)
	b = en.appendImages(b, s.ID, true)
	b = append(b, `,"sharedAccords":`...)
	b = appendAccords(en, b, sharedAccords(s.SharedAccords))
	b = append(b, `,"sharedNotes":`...)
	b = appendStrings(b, s.SharedNotes)
	b = append(b, `,"accords":`...)
	return appendAccords(en, b, s.Accords())
}

// appendSimilar appends similar items, or dupe items (which add priceTier
// and rating) when dupes is set.
func (en *encoder) appendSimilar(b []byte, ss []index.Scored, dupes bool) []byte {
	b = append(b, '[')
	for i := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = en.appendSimilarFields(b, &ss[i])
		if dupes {
			b = append(b, `,"priceTier":`...)
			b = appendString(b, string(ss[i].PriceTier()))
			b = append(b, `,"rating":`...)
			b = appendOptFloat(b, ss[i].Rating)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendSource appends the source member of /similar: id, slug, name, brand.
func appendSource(b []byte, e *index.Entry) []byte {
	b = append(b, `{"source":{`...)
	b = appendIdent(b, e)
	return append(b, '}')
}

// appendSimilarAnswer appends GET /api/perfumes/{slug}/similar.
func (en *encoder) appendSimilarAnswer(b []byte, e *index.Entry, items []index.Scored, limit int) []byte {
	b = appendSource(b, e)
	b = append(b, `,"data":`...)
	b = en.appendSimilar(b, items, false)
	return appendTotalLimit(b, len(items), limit)
}

// appendDupesAnswer appends GET /api/perfumes/{slug}/dupes, whose source
// also carries images, rating and price tier.
func (en *encoder) appendDupesAnswer(b []byte, e *index.Entry, items []index.Scored, limit int) []byte {
	b = append(b, `{"source":{`...)
	b = appendIdent(b, e)
	b = en.appendImages(b, e.ID, false)
	b = append(b, `,"rating":`...)
	b = appendOptFloat(b, e.Rating)
	b = append(b, `,"priceTier":`...)
	b = appendOptString(b, string(e.PriceTier()))
	b = append(b, `},"data":`...)
	b = en.appendSimilar(b, items, true)
	return appendTotalLimit(b, len(items), limit)
}

// appendTotalLimit closes an answer with its total and limit.
func appendTotalLimit(b []byte, total, limit int) []byte {
	b = append(b, `,"total":`...)
	b = appendInt(b, total)
	b = append(b, `,"limit":`...)
	b = appendInt(b, limit)
	return append(b, '}')
}

// appendMatches appends match items.
func (en *encoder) appendMatches(b []byte, ss []index.Scored) []byte {
	b = append(b, '[')
	for i := range ss {
		s := &ss[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendIdent(b, s.Entry)
		b = append(b, `,"matchScore":`...)
		b = appendFloat(b, s.Score)
		b = append(b, `,"rating":`...)
		b = appendOptFloat(b, s.Rating)
		b = append(b, `,"ratingCount":`...)
		b = appendInt(b, s.RatingCount)
		b = append(b, `,"image":`...)
		b = en.urls.appendImage(b, s.ID)
		b = append(b, `,"accords":`...)
		b = appendAccords(en, b, s.Accords())
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendCounts appends brand, note, perfumer or accord entries; slug and
// color only where set.
func appendCounts(b []byte, cs []index.Count) []byte {
	b = append(b, '[')
	for i := range cs {
		c := &cs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, c.Name)
		if c.Slug != "" {
			b = append(b, `,"slug":`...)
			b = appendString(b, c.Slug)
		}
		b = append(b, `,"count":`...)
		b = appendInt(b, c.Count)
		if c.Color != "" {
			b = append(b, `,"color":`...)
			b = appendString(b, c.Color)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendCountsAnswer appends {"data":[...],"total":n} and, when limit > 0,
// "limit".
func appendCountsAnswer(b []byte, cs []index.Count, total, limit int) []byte {
	b = append(b, `{"data":`...)
	b = appendCounts(b, cs)
	b = append(b, `,"total":`...)
	b = appendInt(b, total)
	if limit > 0 {
		b = append(b, `,"limit":`...)
		b = appendInt(b, limit)
	}
	return append(b, '}')
}

// appendMatchAnswer appends GET /api/perfumes/match: the page of matches
// and the filters echoed with their canonical names.
func (en *encoder) appendMatchAnswer(b []byte, q index.MatchQuery, res index.MatchResult) []byte {
	b = append(b, `{"data":`...)
	b = en.appendMatches(b, res.Items)
	b = append(b, `,"filters":{"accords":[`...)
	for i, a := range res.Accords {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, a.Name)
	}
	b = append(b, `],"accordStrengths":{`...)
	for i, a := range strengthsByName(res.Accords) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, a.Name)
		b = append(b, ':')
		b = appendFloat(b, a.Strength)
	}
	b = append(b, `},"notes":`...)
	b = appendStrings(b, res.Notes)
	b = append(b, `,"gender":`...)
	b = appendOptString(b, string(q.Gender))
	b = append(b, `,"season":`...)
	b = appendOptString(b, q.Season)
	b = append(b, `,"time":`...)
	b = appendOptString(b, q.Time)
	b = append(b, '}')
	return appendPaging(b, res.Total, res.Page, res.Pages, res.Limit)
}

// strengthsByName is the accordStrengths object: one strength per name (the
// last given wins, as in a map), ordered by name as encoding/json orders a
// map's keys.
func strengthsByName(as []index.AccordWant) []index.AccordWant {
	out := make([]index.AccordWant, 0, len(as))
	for _, a := range as {
		if i := slices.IndexFunc(out, func(o index.AccordWant) bool { return o.Name == a.Name }); i >= 0 {
			out[i].Strength = a.Strength
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y index.AccordWant) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// appendPerfumer appends GET /api/perfumers/{slug}: the perfumer and a page
// of their perfumes.
func (en *encoder) appendPerfumer(b []byte, c index.Count, pg index.Page) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, c.Name)
	b = append(b, `,"slug":`...)
	b = appendString(b, c.Slug)
	b = append(b, `,"count":`...)
	b = appendInt(b, c.Count)
	b = append(b, `,"perfumes":`...)
	b = en.appendPage(b, pg)
	return append(b, '}')
}
