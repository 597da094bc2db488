package api

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/usage"
	"github.com/fragrance-data/fragrance/internal/view"
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
	urls view.Builder
	// accords remembers, per accord name, its encoded object around the
	// strength: `{"name":"woody","strength":` and `,"color":"#8B5A2B"}`.
	// An accord object was three lookups and escapes of strings that never
	// change (the name, the colour's memo, the colour); a list page writes
	// some 160.
	accords *view.Memo[accordParts]
	// buyPrefix opens every buyUrl: the quote, the base URL encoded, and
	// the path up to the slug.
	buyPrefix string
	// accordTab is the current catalogue's accordParts by spelling id
	// (index.AccordList.Spelling): a perfume's accords are looked up in
	// it by number, where the memo hashes each name (a list page of 55
	// perfumes looks up some 400 accords).
	accordTab atomic.Pointer[accordTab]
	// itemMemo keeps the perfumes' encoded list items (nil: none); an
	// encoder gets its catalogue's (encoderFor).
	itemMemo *itemMemo
}

// accordParts is an accord's object around its strength; name is the
// accord's (a table by spelling id checks that it has the right one).
type accordParts struct{ name, open, close string }

// accordTab is one catalogue's accordParts by spelling id.
type accordTab struct {
	ix    *index.Index
	parts []accordParts
}

// accordPartsOf returns ix's accordParts by spelling id, making them the
// first time ix is asked for (a catalogue spells a few hundred accords at
// most); nil for a nil ix.
func (rd *render) accordPartsOf(ix *index.Index) []accordParts {
	if ix == nil {
		return nil
	}
	if t := rd.accordTab.Load(); t != nil && t.ix == ix {
		return t.parts
	}
	names := ix.AccordSpellings()
	t := &accordTab{ix: ix, parts: make([]accordParts, len(names))}
	for id, name := range names {
		t.parts[id] = rd.accords.Get(name)
	}
	rd.accordTab.Store(t)
	return t.parts
}

// newRender returns the render of urls.
func newRender(urls view.Builder) *render {
	buyPrefix := string(jsonenc.AppendStringBody([]byte{'"'}, urls.Base())) + "/goto/"
	return &render{urls: urls, buyPrefix: buyPrefix, accords: view.NewMemo(func(name string) accordParts {
		return accordParts{
			name:  name,
			open:  string(jsonenc.AppendString([]byte(`{"name":`), name)) + `,"strength":`,
			close: string(jsonenc.AppendString([]byte(`,"color":`), urls.AccordColor(name))) + "}",
		}
	})}
}

// encoder encodes one answer. imageTransparentAvailable and the image URLs
// of the image host (which carry the images' versions) are the members
// whose values can change while a catalogue is served (as transparent
// images are made, photos imported), so the encoder leaves a hole where
// each goes: the encoded answer can be kept, and the holes filled with live
// values whenever it is written (see frozen).
//
// A kept item (en.items) is written with its holes filled, as of the image
// host's stamp when the encoder was made; where each kept item's part is,
// the encoder notes in splices, so that a kept answer can refer to the
// item rather than hold a copy of it.
type encoder struct {
	*render
	items *itemGen // the catalogue's encoded list items; nil: none
	// accordParts are the catalogue's accords encoded, by spelling id.
	accordParts []accordParts
	holes       []hole        // outside the kept items' parts
	splices     []splice      // the kept items' parts, in order
	notes       *encoderNotes // the pool's, whose arrays holes and splices use; nil: none
	counts      answerCounts
	stamp       uint64 // the image host's stamp (view.Builder.Stamp)
	stamped     bool
	warm        uint32 // what prefetch read, kept so that its loads are
}

// prefetchScored is prefetch of the perfumes of ss.
func (en *encoder) prefetchScored(ss []index.Scored) {
	var buf [32]*index.Entry
	for len(ss) > 0 {
		es := buf[:0]
		for _, s := range ss[:min(len(ss), len(buf))] {
			es = append(es, s.Entry)
		}
		en.prefetch(es)
		ss = ss[len(es):]
	}
}

// prefetch starts the loads that encoding the items of es waits for (see
// index.Prefetch) and those of their slots in the item memo, before the
// items are encoded one by one.
func (en *encoder) prefetch(es []*index.Entry) {
	en.warm += index.Prefetch(es)
	var ids [view.PrefetchBatch]int64
	for rest := es; len(rest) > 0; {
		n := min(len(rest), len(ids))
		for i, e := range rest[:n] {
			ids[i] = e.ID
		}
		en.urls.PrefetchImages(ids, n)
		rest = rest[n:]
	}
	if g := en.items; g != nil {
		for _, e := range es {
			if pos, ok := g.ix.Pos(e); ok {
				g.slots[pos].Load()
			}
		}
	}
}

// encoderFor returns an encoder of an answer about catalogue ix (nil: a
// catalogue not served, whose items are not kept). Its notes' arrays come
// from a pool; release gives them back (an encoder not released leaves
// them to the collector).
func (rd *render) encoderFor(ix *index.Index) encoder {
	en := encoder{render: rd, items: rd.itemMemo.of(ix), accordParts: rd.accordPartsOf(ix)}
	if en.items != nil {
		en.stamp, en.stamped = rd.urls.Stamp()
	}
	en.notes = notesPool.Get().(*encoderNotes)
	en.holes, en.splices = en.notes.holes[:0], en.notes.splices[:0]
	return en
}

// encoderNotes are an encoder's notes of an answer's holes and kept
// items, whose arrays are kept from one answer to the next: grown afresh
// in each, they cost five or six allocations an answer.
type encoderNotes struct {
	holes   []hole
	splices []splice
}

var notesPool = sync.Pool{New: func() any { return new(encoderNotes) }}

// maxPooledNotes bounds the notes kept for the next answer (a page of 100
// items notes some 300).
const maxPooledNotes = 1024

// release gives the encoder's notes back, once its answer is written or
// kept (a kept answer copies what it keeps of them); en is not used after.
func (en *encoder) release() {
	n := en.notes
	if n == nil || cap(en.holes) > maxPooledNotes || cap(en.splices) > maxPooledNotes {
		return
	}
	n.holes, n.splices = en.holes[:0], en.splices[:0]
	en.notes, en.holes, en.splices = nil, nil, nil
	notesPool.Put(n)
}

// view notes that the answer shows perfume id through an answer of kind,
// which the meter counts each time the answer is served.
func (en *encoder) view(id int64, kind usage.ViewKind) {
	en.counts.viewed, en.counts.viewKind = id, kind
}

// appendAccords appends a perfume's accords array as the index stores it,
// each accord's parts found by its spelling id.
func (en *encoder) appendAccords(b []byte, as index.AccordList) []byte {
	b = append(b, '[')
	for i := range as.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		a := as.At(i)
		if id := int(as.Spelling(i)); id < len(en.accordParts) && en.accordParts[id].name == a.Name {
			b = appendAccord(b, en.accordParts[id], a.Strength)
		} else { // an entry of another catalogue than the encoder's
			b = appendAccord(b, en.accords.Get(a.Name), a.Strength)
		}
	}
	return append(b, ']')
}

// appendAccord appends one accord object: its parts around its strength.
func appendAccord(b []byte, p accordParts, strength float64) []byte {
	b = append(b, p.open...)
	b = jsonenc.AppendFloat(b, strength)
	return append(b, p.close...)
}

// appendImages appends the image, imageTransparent and (when available is
// set) imageTransparentAvailable members, each after a comma; the last is a
// hole, filled when the answer is written.
func (en *encoder) appendImages(b []byte, id int64, available bool) []byte {
	b = append(b, `,"image":`...)
	b = en.appendImage(b, id)
	b = append(b, `,"imageTransparent":`...)
	b = en.appendTransparent(b, id)
	if available {
		b = append(b, `,"imageTransparentAvailable":`...)
		en.holes = append(en.holes, hole{pos: len(b), id: id})
	}
	return b
}

// appendIdent appends the id, slug, name and brand members that open every
// perfume object, after the opening brace.
func appendIdent(b []byte, e *index.Entry) []byte {
	b, _ = appendIdentSlug(b, e)
	return b
}

// appendIdentSlug is appendIdent that also returns where the slug's
// encoded characters are in b (without quotes), for a caller that writes
// them again.
func appendIdentSlug(b []byte, e *index.Entry) ([]byte, span) {
	b = append(b, `"id":"`...)
	start := len(b)
	b = jsonenc.AppendStringBody(b, e.Slug())
	slug := span{start, len(b)}
	b = append(b, `","slug":"`...)
	b = append(b, b[slug.from:slug.to]...) // the id is the slug, encoded once
	b = append(b, '"')
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, e.Name())
	b = append(b, `,"brand":`...)
	return jsonenc.AppendString(b, e.Brand()), slug
}

// span is where some bytes are in an answer being encoded.
type span struct{ from, to int }

// appendList appends a perfume list item array.
func (en *encoder) appendList(b []byte, es []*index.Entry) []byte {
	en.prefetch(es)
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
	b = jsonenc.AppendInt(b, total)
	b = append(b, `,"page":`...)
	b = jsonenc.AppendInt(b, page)
	b = append(b, `,"pages":`...)
	b = jsonenc.AppendInt(b, pages)
	b = append(b, `,"limit":`...)
	b = jsonenc.AppendInt(b, limit)
	return append(b, '}')
}

// appendNotes appends a pyramid layer with intensities (view.NoteIntensity).
func appendNotes(b []byte, layer index.Names) []byte {
	b = append(b, '[')
	for i := range layer.Len() {
		n := layer.At(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonenc.AppendString(b, n)
		b = append(b, `,"intensity":`...)
		b = jsonenc.AppendFloat(b, view.NoteIntensity(i, layer.Len()))
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
		b = jsonenc.AppendString(b, r.Name)
		b = append(b, `,"score":`...)
		b = jsonenc.AppendFloat(b, r.Score)
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
	b = jsonenc.AppendString(b, e.BrandSlug())
	b = append(b, `,"description":`...)
	b = jsonenc.AppendString(b, e.Description())
	b = append(b, `,"family":`...)
	b = jsonenc.AppendOptString(b, e.Family())
	b = append(b, `,"longevity":`...)
	b = jsonenc.AppendOptFloat(b, e.Longevity)
	b = append(b, `,"sillage":`...)
	b = jsonenc.AppendOptFloat(b, e.Sillage)
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
	b = jsonenc.AppendFloat(b, s.Winter)
	b = append(b, `,"spring":`...)
	b = jsonenc.AppendFloat(b, s.Spring)
	b = append(b, `,"summer":`...)
	b = jsonenc.AppendFloat(b, s.Summer)
	b = append(b, `,"fall":`...)
	b = jsonenc.AppendFloat(b, s.Fall)
	b = append(b, `},"dayNight":{"day":`...)
	b = jsonenc.AppendFloat(b, d.Day)
	b = append(b, `,"night":`...)
	b = jsonenc.AppendFloat(b, d.Night)
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
		b = jsonenc.AppendString(b, name)
		b = append(b, `,"slug":`...)
		b = jsonenc.AppendString(b, en.urls.PerfumerSlug(name))
		b = append(b, '}')
	}
	b = append(b, `],"seasonRanking":`...)
	b = appendRanked(b, e.SeasonRanking())
	b = append(b, `,"timeRanking":`...)
	b = appendRanked(b, e.TimeRanking())
	p := e.Popularity
	b = append(b, `,"popularity":{"score":`...)
	b = jsonenc.AppendFloat(b, p.Score)
	b = append(b, `,"ratingCount":`...)
	b = jsonenc.AppendInt(b, p.RatingCount)
	b = append(b, `,"rank":`...)
	b = jsonenc.AppendInt(b, p.Rank)
	return append(b, `}}`...)
}

// appendSimilarFields appends the members of a similar item, without braces.
func (en *encoder) appendSimilarFields(b []byte, s *index.Scored) []byte {
	it := en.item(s.Entry)
	b = en.appendIdentOf(b, s.Entry, it)
	b = append(b, `,"matchScore":`...)
	b = jsonenc.AppendFloat(b, s.Score)
	b = en.appendImages(b, s.ID, true)
	b = append(b, `,"sharedAccords":`...)
	b = en.appendAccords(b, s.SharedAccords)
	b = append(b, `,"sharedNotes":`...)
	b = jsonenc.AppendStrings(b, s.SharedNotes)
	b = append(b, `,"accords":`...)
	return en.appendAccordsOf(b, s.Entry, it)
}

// appendSimilar appends similar items, or dupe items (which add priceTier
// and rating) when dupes is set.
func (en *encoder) appendSimilar(b []byte, ss []index.Scored, dupes bool) []byte {
	en.prefetchScored(ss)
	b = append(b, '[')
	for i := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = en.appendSimilarFields(b, &ss[i])
		if dupes {
			b = append(b, `,"priceTier":`...)
			b = jsonenc.AppendString(b, string(ss[i].PriceTier()))
			b = append(b, `,"rating":`...)
			b = jsonenc.AppendOptFloat(b, ss[i].Rating)
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
	b = jsonenc.AppendOptFloat(b, e.Rating)
	b = append(b, `,"priceTier":`...)
	b = jsonenc.AppendOptString(b, string(e.PriceTier()))
	b = append(b, `},"data":`...)
	b = en.appendSimilar(b, items, true)
	return appendTotalLimit(b, len(items), limit)
}

// appendTotalLimit closes an answer with its total and limit.
func appendTotalLimit(b []byte, total, limit int) []byte {
	b = append(b, `,"total":`...)
	b = jsonenc.AppendInt(b, total)
	b = append(b, `,"limit":`...)
	b = jsonenc.AppendInt(b, limit)
	return append(b, '}')
}

// appendMatches appends match items.
func (en *encoder) appendMatches(b []byte, ss []index.Scored) []byte {
	en.prefetchScored(ss)
	b = append(b, '[')
	for i := range ss {
		s := &ss[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		it := en.item(s.Entry)
		b = en.appendIdentOf(b, s.Entry, it)
		b = append(b, `,"matchScore":`...)
		b = jsonenc.AppendFloat(b, s.Score)
		b = append(b, `,"rating":`...)
		b = jsonenc.AppendOptFloat(b, s.Rating)
		b = append(b, `,"ratingCount":`...)
		b = jsonenc.AppendInt(b, s.RatingCount)
		b = append(b, `,"image":`...)
		b = en.appendImage(b, s.ID)
		b = append(b, `,"accords":`...)
		b = en.appendAccordsOf(b, s.Entry, it)
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
		b = jsonenc.AppendString(b, c.Name)
		if c.Slug != "" {
			b = append(b, `,"slug":`...)
			b = jsonenc.AppendString(b, c.Slug)
		}
		b = append(b, `,"count":`...)
		b = jsonenc.AppendInt(b, c.Count)
		if c.Color != "" {
			b = append(b, `,"color":`...)
			b = jsonenc.AppendString(b, c.Color)
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
	b = jsonenc.AppendInt(b, total)
	if limit > 0 {
		b = append(b, `,"limit":`...)
		b = jsonenc.AppendInt(b, limit)
	}
	return append(b, '}')
}

// appendMatchAnswer appends GET /api/perfumes/match: the page of matches
// and the filters echoed with their canonical names (view.EchoMatch), and
// for a described match the exclusions, brand and words ignored.
func (en *encoder) appendMatchAnswer(b []byte, e view.MatchEcho, res index.MatchResult) []byte {
	b = append(b, `{"data":`...)
	b = en.appendMatches(b, res.Items)
	b = append(b, `,"filters":{"accords":[`...)
	for i, a := range e.Accords {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, a.Name)
	}
	b = append(b, `],"accordStrengths":{`...)
	for i, a := range strengthsByName(e.Accords) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, a.Name)
		b = append(b, ':')
		b = jsonenc.AppendFloat(b, a.Strength)
	}
	b = append(b, `},"notes":`...)
	b = jsonenc.AppendStrings(b, e.Notes)
	b = append(b, `,"gender":`...)
	b = jsonenc.AppendOptString(b, e.Gender)
	b = append(b, `,"season":`...)
	b = jsonenc.AppendOptString(b, e.Season)
	b = append(b, `,"time":`...)
	b = jsonenc.AppendOptString(b, e.Time)
	if e.Described {
		b = append(b, `,"excluded":`...)
		b = jsonenc.AppendStrings(b, e.Excluded)
		b = append(b, `,"brand":`...)
		b = jsonenc.AppendOptString(b, e.Brand)
		b = append(b, `,"ignored":`...)
		b = jsonenc.AppendStrings(b, e.Ignored)
	}
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
	b = jsonenc.AppendString(b, c.Name)
	b = append(b, `,"slug":`...)
	b = jsonenc.AppendString(b, c.Slug)
	b = append(b, `,"count":`...)
	b = jsonenc.AppendInt(b, c.Count)
	b = append(b, `,"perfumes":`...)
	b = en.appendPage(b, pg)
	return append(b, '}')
}

// appendImage appends the JSON string of a perfume's image URL
// (view.Builder.Image), without building the string when the images are at
// their default paths. The image host's URLs carry the image's version,
// which changes while a catalogue is served (an import, a finished job):
// they are holes, filled when the answer is written.
func (en *encoder) appendImage(b []byte, id int64) []byte {
	u := en.urls
	if u.ImageHost() == nil {
		b = jsonenc.AppendStringBody(append(b, '"'), u.Base())
		b = strconv.AppendInt(append(b, "/img/perfume/"...), id, 10)
		return append(b, `.jpg"`...)
	}
	en.holes = append(en.holes, hole{pos: len(b), id: id, kind: holeImage})
	return b
}

// appendTransparent appends the JSON string of view.Builder.Transparent, as
// appendImage does.
func (en *encoder) appendTransparent(b []byte, id int64) []byte {
	u := en.urls
	if u.ImageHost() == nil {
		b = jsonenc.AppendStringBody(append(b, '"'), u.Base())
		b = strconv.AppendInt(append(b, "/img/perfume-nobg/"...), id, 10)
		return append(b, `.webp"`...)
	}
	en.holes = append(en.holes, hole{pos: len(b), id: id, kind: holeTransparent})
	return b
}

// appendBuy appends the JSON string of view.Builder.Buy of the perfume whose
// slug, encoded, is at slug in b.
func (en *encoder) appendBuy(b []byte, slug span) []byte {
	b = append(b, en.buyPrefix...)
	b = append(b, b[slug.from:slug.to]...)
	return append(b, '"')
}
