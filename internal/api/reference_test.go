package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/importer"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

// The reference shapes of the API's answers: the structs encoding/json
// encoded before the hand-written encoders of encode.go replaced them. The
// tests below hold both to the same bytes.

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

// refRender turns index entries into the reference shapes.
type refRender struct {
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

func (rd refRender) accords(e *index.Entry) []accordJSON {
	return rd.accordList(e.Accords().Slice())
}

func (rd refRender) accordList(as []catalog.AccordStrength) []accordJSON {
	out := make([]accordJSON, len(as))
	for i, a := range as {
		out[i] = accordJSON{Name: a.Name, Strength: a.Strength, Color: rd.urls.AccordColor(a.Name)}
	}
	return out
}

func (rd refRender) listItem(e *index.Entry) listItem {
	return listItem{
		ID:                        e.Slug(),
		Slug:                      e.Slug(),
		Name:                      e.Name(),
		Brand:                     e.Brand(),
		Year:                      optInt(e.Year),
		Rating:                    optFloat(e.Rating),
		RatingCount:               e.RatingCount,
		Concentration:             optString(e.Concentration()),
		Gender:                    string(e.Gender()),
		PriceTier:                 optString(string(e.PriceTier())),
		Image:                     rd.urls.Image(e.ID),
		ImageTransparent:          rd.urls.Transparent(e.ID),
		ImageTransparentAvailable: rd.urls.TransparentAvailable(e.ID),
		BuyURL:                    rd.urls.Buy(e.Slug()),
		Accords:                   rd.accords(e),
	}
}

func (rd refRender) list(es []*index.Entry) []listItem {
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

func (rd refRender) detail(e *index.Entry, similar []index.Scored) detail {
	pyr, perfumers := e.Notes().Pyramid(), e.Perfumers().Slice()
	d := detail{
		listItem:    rd.listItem(e),
		BrandSlug:   e.BrandSlug(),
		Description: e.Description(),
		Family:      optString(e.Family()),
		Longevity:   optFloat(e.Longevity),
		Sillage:     optFloat(e.Sillage),
		Notes: notesJSON{
			Top: notes(pyr.Top), Middle: notes(pyr.Middle),
			Base: notes(pyr.Base), Unplaced: notes(pyr.Unplaced),
		},
		Seasons:         e.Seasons,
		DayNight:        e.DayNight,
		SimilarPerfumes: rd.similar(similar),
		Perfumers:       make([]perfumerRef, len(perfumers)),
		SeasonRanking:   ranked(e.SeasonRanking()),
		TimeRanking:     ranked(e.TimeRanking()),
		Popularity:      popularityJSON{Score: e.Popularity.Score, RatingCount: e.Popularity.RatingCount, Rank: e.Popularity.Rank},
	}
	for i, name := range perfumers {
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

func (rd refRender) similarItem(s index.Scored) similarItem {
	shared := s.SharedNotes
	if shared == nil {
		shared = []string{}
	}
	return similarItem{
		ID: s.Slug(), Slug: s.Slug(), Name: s.Name(), Brand: s.Brand(),
		MatchScore:                s.Score,
		Image:                     rd.urls.Image(s.ID),
		ImageTransparent:          rd.urls.Transparent(s.ID),
		ImageTransparentAvailable: rd.urls.TransparentAvailable(s.ID),
		SharedAccords:             rd.accordList(s.SharedAccords),
		SharedNotes:               shared,
		Accords:                   rd.accords(s.Entry),
	}
}

func (rd refRender) similar(ss []index.Scored) []similarItem {
	out := make([]similarItem, len(ss))
	for i, s := range ss {
		out[i] = rd.similarItem(s)
	}
	return out
}

func (rd refRender) dupes(ss []index.Scored) []dupeItem {
	out := make([]dupeItem, len(ss))
	for i, s := range ss {
		out[i] = dupeItem{similarItem: rd.similarItem(s), PriceTier: string(s.PriceTier()), Rating: optFloat(s.Rating)}
	}
	return out
}

func (rd refRender) matches(ss []index.Scored) []matchItem {
	out := make([]matchItem, len(ss))
	for i, s := range ss {
		out[i] = matchItem{
			ID: s.Slug(), Slug: s.Slug(), Name: s.Name(), Brand: s.Brand(),
			MatchScore: s.Score, Rating: optFloat(s.Rating), RatingCount: s.RatingCount,
			Image: rd.urls.Image(s.ID), Accords: rd.accords(s.Entry),
		}
	}
	return out
}

func ref(e *index.Entry) sourceRef {
	return sourceRef{ID: e.Slug(), Slug: e.Slug(), Name: e.Name(), Brand: e.Brand()}
}

func counts(cs []index.Count) []countJSON {
	out := make([]countJSON, len(cs))
	for i, c := range cs {
		out[i] = countJSON{Name: c.Name, Slug: c.Slug, Count: c.Count, Color: c.Color}
	}
	return out
}

type pageJSON struct {
	Data  []listItem `json:"data"`
	Total int        `json:"total"`
	Page  int        `json:"page"`
	Pages int        `json:"pages"`
	Limit int        `json:"limit"`
}

func (rd refRender) page(pg index.Page) pageJSON {
	return pageJSON{Data: rd.list(pg.Entries), Total: pg.Total, Page: pg.Page, Pages: pg.Pages, Limit: pg.Limit}
}

type similarJSON struct {
	Source sourceRef     `json:"source"`
	Data   []similarItem `json:"data"`
	Total  int           `json:"total"`
	Limit  int           `json:"limit"`
}

type dupesJSON struct {
	Source dupeSource `json:"source"`
	Data   []dupeItem `json:"data"`
	Total  int        `json:"total"`
	Limit  int        `json:"limit"`
}

func (rd refRender) dupesAnswer(e *index.Entry, items []index.Scored, limit int) dupesJSON {
	src := dupeSource{
		sourceRef:        ref(e),
		Image:            rd.urls.Image(e.ID),
		ImageTransparent: rd.urls.Transparent(e.ID),
		Rating:           optFloat(e.Rating),
		PriceTier:        optString(string(e.PriceTier())),
	}
	return dupesJSON{Source: src, Data: rd.dupes(items), Total: len(items), Limit: limit}
}

type matchFilters struct {
	Accords         []string           `json:"accords"`
	AccordStrengths map[string]float64 `json:"accordStrengths"`
	Notes           []string           `json:"notes"`
	Gender          *string            `json:"gender"`
	Season          *string            `json:"season"`
	Time            *string            `json:"time"`
}

type matchJSON struct {
	Data    []matchItem  `json:"data"`
	Filters matchFilters `json:"filters"`
	Total   int          `json:"total"`
	Page    int          `json:"page"`
	Pages   int          `json:"pages"`
	Limit   int          `json:"limit"`
}

func (rd refRender) matchAnswer(q index.MatchQuery, res index.MatchResult) matchJSON {
	f := matchFilters{
		Accords:         make([]string, len(res.Accords)),
		AccordStrengths: make(map[string]float64, len(res.Accords)),
		Notes:           res.Notes,
		Gender:          optString(string(q.Gender)),
		Season:          optString(q.Season),
		Time:            optString(q.Time),
	}
	if f.Notes == nil {
		f.Notes = []string{}
	}
	for i, a := range res.Accords {
		f.Accords[i] = a.Name
		f.AccordStrengths[a.Name] = a.Strength
	}
	return matchJSON{Data: rd.matches(res.Items), Filters: f, Total: res.Total, Page: res.Page, Pages: res.Pages, Limit: res.Limit}
}

type countsJSON struct {
	Data  []countJSON `json:"data"`
	Total int         `json:"total"`
}

type limitedCountsJSON struct {
	Data  []countJSON `json:"data"`
	Total int         `json:"total"`
	Limit *int        `json:"limit,omitempty"`
}

type perfumerJSON struct {
	Name     string   `json:"name"`
	Slug     string   `json:"slug"`
	Count    int      `json:"count"`
	Perfumes pageJSON `json:"perfumes"`
}

// refEncode is what writeJSON wrote before: encoding/json, no HTML
// escaping, a trailing newline.
func refEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fastEncode is what Server.answer writes: the encoding with its holes
// filled.
func fastEncode(rd *render, f func(en *encoder, b []byte) []byte) []byte {
	en := &encoder{render: rd}
	fz := &frozen{body: append(f(en, nil), '\n'), holes: en.holes}
	return fz.appendTo(nil, rd.urls)
}

// sameBytes fails when the two encodings differ, showing where.
func sameBytes(t *testing.T, what string, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(i-80, 0)
	t.Fatalf("%s: encodings differ at byte %d\nwant …%s\n got …%s", what, i,
		want[from:min(i+80, len(want))], got[from:min(i+80, len(got))])
}

// fakeImages reports every third transparent image as available, so both
// values of imageTransparentAvailable are encoded.
type fakeImages struct{}

func (fakeImages) ImageURL(id int64) string {
	return "https://img.example/p/" + strconv.FormatInt(id, 10) + ".jpg"
}
func (fakeImages) TransparentURL(id int64) string {
	return "https://img.example/n/" + strconv.FormatInt(id, 10) + ".webp"
}
func (fakeImages) TransparentAvailable(id int64) bool { return id%3 == 0 }

// refIndex is the bundled catalogue, built once for the tests of this file.
var refIndex = sync.OnceValues(func() (*index.Index, error) {
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, err
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for i := range res.Perfumes {
		p := &res.Perfumes[i]
		for _, c := range catalog.SlugCandidates(p.Slug, p.Year, p.ID) {
			if !taken[c] {
				p.Slug, taken[c] = c, true
				break
			}
		}
	}
	return index.Build(res.Perfumes, index.Options{AccordColor: ref.Color}), nil
})

func testRenders(t *testing.T) []struct {
	name string
	fast *render
	ref  refRender
} {
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	var out []struct {
		name string
		fast *render
		ref  refRender
	}
	for _, tc := range []struct {
		name   string
		base   string
		images Images
	}{{"default-images", "http://127.0.0.1:8080/a\"b\u2028\x01é", nil}, {"image-host", "https://fragrance.example", fakeImages{}}} {
		u := newURLs(tc.base, tc.images, ref.Color)
		out = append(out, struct {
			name string
			fast *render
			ref  refRender
		}{tc.name, &render{urls: u}, refRender{urls: u}})
	}
	return out
}

// TestEncodersMatchReference encodes every perfume of the bundled catalogue
// as a list item, a fifth of them as details (some with similar perfumes),
// and samples of every other answer, both ways, and wants the same bytes.
func TestEncodersMatchReference(t *testing.T) {
	ix, err := refIndex()
	if err != nil {
		t.Fatal(err)
	}
	all := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()})
	for _, r := range testRenders(t) {
		t.Run(r.name, func(t *testing.T) {
			step := 5 // every perfume is encoded in the page below; a fifth as details
			if raceEnabled {
				step = 50
			}
			for i, e := range all.Entries {
				if i%step != 0 {
					continue
				}
				var similar []index.Scored
				if i%97 == 0 { // similarity is slow; a sample shows the embedded items
					_, similar, _ = ix.Similar(e.Slug(), 5)
				}
				sameBytes(t, "detail "+e.Slug(), refEncode(t, r.ref.detail(e, similar)),
					fastEncode(r.fast, func(en *encoder, b []byte) []byte { return en.appendDetail(b, e, similar) }))
			}
			for _, pg := range []index.Page{all, ix.Perfumes(index.ListQuery{Q: "xyzzy", Page: 1, Limit: 20})} {
				sameBytes(t, "page", refEncode(t, r.ref.page(pg)), fastEncode(r.fast, func(en *encoder, b []byte) []byte { return en.appendPage(b, pg) }))
			}
			checkScoredAnswers(t, ix, r.fast, r.ref)
			checkCountAnswers(t, ix, r.fast)
		})
	}
}

func checkScoredAnswers(t *testing.T, ix *index.Index, fast *render, rr refRender) {
	for _, slug := range []string{"dior-sauvage", "creed-aventus", "dolce-and-gabbana-light-blue", "chanel-coco-mademoiselle"} {
		e, items, err := ix.Similar(slug, 20)
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, "similar "+slug, refEncode(t, similarJSON{Source: ref(e), Data: rr.similar(items), Total: len(items), Limit: 20}),
			fastEncode(fast, func(en *encoder, b []byte) []byte { return en.appendSimilarAnswer(b, e, items, 20) }))
		e, items, err = ix.Dupes(slug, 50)
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, "dupes "+slug, refEncode(t, rr.dupesAnswer(e, items, 50)),
			fastEncode(fast, func(en *encoder, b []byte) []byte { return en.appendDupesAnswer(b, e, items, 50) }))
	}
	for _, q := range []index.MatchQuery{
		{Accords: []index.AccordWant{{Name: "woody", Strength: 40}, {Name: "vanilla", Strength: 100}, {Name: "Woody", Strength: 55.5}},
			Notes: []string{"tonka bean"}, Gender: catalog.Masculine, Season: "winter", Page: 1, Limit: 50},
		{Notes: []string{"rose", "oud"}, Time: "night", Page: 2, Limit: 7},
		{Season: "summer", Page: 1, Limit: 20},
		{Accords: []index.AccordWant{{Name: "citrus", Strength: 100}}, Page: 1000, Limit: 20},
	} {
		res, err := ix.Match(q)
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, fmt.Sprintf("match %+v", q), refEncode(t, rr.matchAnswer(q, res)),
			fastEncode(fast, func(en *encoder, b []byte) []byte { return en.appendMatchAnswer(b, q, res) }))
	}
	c, pg, err := ix.Perfumer("dominique-ropion", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "perfumer", refEncode(t, perfumerJSON{Name: c.Name, Slug: c.Slug, Count: c.Count, Perfumes: rr.page(pg)}),
		fastEncode(fast, func(en *encoder, b []byte) []byte { return en.appendPerfumer(b, c, pg) }))
}

func checkCountAnswers(t *testing.T, ix *index.Index, fast *render) {
	brands := ix.Brands("")
	sameBytes(t, "brands", refEncode(t, countsJSON{Data: counts(brands), Total: len(brands)}),
		fastEncode(fast, func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, brands, len(brands), 0) }))
	notes, total := ix.Notes(0)
	sameBytes(t, "notes", refEncode(t, limitedCountsJSON{Data: counts(notes), Total: total}),
		fastEncode(fast, func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, notes, total, 0) }))
	accords, total := ix.Accords("", 100)
	limit := 100
	sameBytes(t, "accords", refEncode(t, limitedCountsJSON{Data: counts(accords), Total: total, Limit: &limit}),
		fastEncode(fast, func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, accords, total, limit) }))
	ps := ix.Perfumers()
	sameBytes(t, "perfumers", refEncode(t, countsJSON{Data: counts(ps), Total: len(ps)}),
		fastEncode(fast, func(_ *encoder, b []byte) []byte { return appendCountsAnswer(b, ps, len(ps), 0) }))
	_ = fast
}
