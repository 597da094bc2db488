package site

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/fragrance-data/fragrance/internal/describe"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The search page reads a query two ways: as a name (the API's search)
// and as a description (package describe: "vanilla tobacco for winter").
// When the description understood something and the query is not a
// well-known perfume's name, the description leads: its heading, its
// terms as removable chips, the words it did not understand and the
// perfumes of the description ranking, those meeting every term first,
// well-known first. A query naming a well-known perfume ("tobacco
// vanille") keeps its name results first, the description offered under
// them. A query that is exactly a note, an accord or a brand offers that
// page first, as a card with its count.

// The search page's reading of a query (the parameter as): by both ways
// (empty), by name only, or by description first whatever the names say.
const (
	readAsName        = "name"
	readAsDescription = "description"
)

// strongNameRatings is how many ratings the first name result needs for
// its name to lead over a description the query also reads as: a perfume
// that many people rated is one a visitor may name ("tobacco vanille"),
// while the names of obscure ones often hold notes ("Vanilla Tobacco").
const strongNameRatings = 1000

// offeredOnNamePage is how many perfumes of the description a name
// search offers under its results.
const offeredOnNamePage = 4

// searchReading is what the search page shows of a description.
type searchReading struct {
	// Heading says what was understood: "Perfumes with vanilla and
	// tobacco, best in winter".
	Heading string
	// Chips are the terms understood, each with the search without it.
	Chips []readingChip
	// Ignored are the words not understood.
	Ignored []string
	// Cards offer the page of the note, accord or brand the whole query
	// names.
	Cards []exactCard
	// First is set when the description leads the page; else it is
	// offered under the name results, with All the whole of it.
	First bool
	All   string
	// Items are a page of the description ranking, Total their number
	// (the perfumes meeting at least one term).
	Items []resultItem
	Total int
	// Several is set when the description has several terms a perfume
	// meets or not (else every result meets its one term).
	Several bool
	Pager   web.Pager
	// Names is how many perfumes the name search finds, and NamesURL
	// that search, when the description leads.
	Names    int
	NamesURL string
	// MoreNames are, when the names lead, the name results after those
	// naming the query well (listed before the description): the rest of
	// the page, under the description.
	MoreNames []resultItem
	// rd is the reading, for splitNames.
	rd describe.Reading
}

// maxLeadingNames is how many name results may come before the
// description offered under them.
const maxLeadingNames = 3

// splitNames, when the names lead, keeps before the description the
// first name results (entries, shown as perfumes) that name q well
// (strongNameMatch: the first at least) and moves the rest of the page
// under it, into MoreNames; it returns those kept.
func (sr *searchReading) splitNames(q string, entries []*index.Entry, perfumes []view.Perfume) []view.Perfume {
	if sr == nil || sr.First || len(perfumes) == 0 {
		return perfumes
	}
	k := 1
	for k < min(maxLeadingNames, len(entries)) && strongNameMatch(q, &sr.rd, entries[k]) {
		k++
	}
	for _, p := range perfumes[k:] {
		sr.MoreNames = append(sr.MoreNames, resultItem{Perfume: p})
	}
	return perfumes[:k]
}

// readingChip is an understood term: its label and the search without it.
type readingChip struct{ Label, Remove string }

// resultItem is a row of the search's results (templates "results"): a
// perfume and, in the description ranking, how much of the description it
// meets ("2 of 3"; empty when the description has one term, which every
// result meets, and for the name results).
type resultItem struct {
	view.Perfume
	Meets string
}

// resultItems are the rows of perfumes listed by name or by filters.
func resultItems(ps []view.Perfume) []resultItem {
	out := make([]resultItem, len(ps))
	for i, p := range ps {
		out[i] = resultItem{Perfume: p}
	}
	return out
}

// exactCard offers the page of the note, accord or brand a whole query
// names, with its number of perfumes.
type exactCard struct {
	Kind, Name, URL, Color string
	Count                  int
}

// readSearch reads the search q (page page of the address u) as a
// description: nil when it is read as a name only (nothing understood,
// as=name, a later page of a strong name match, or a description no
// perfume meets while names do). msg, when set, says why the address
// cannot be answered (a 400).
func (s *Site) readSearch(ix *index.Index, u *url.URL, q string, page int) (sr *searchReading, msg string) {
	as := u.Query().Get("as")
	switch as {
	case "", readAsDescription:
	case readAsName:
		return nil, ""
	default:
		return nil, fmt.Sprintf("The search cannot be read as %q: as is %s or %s.", cut(as), readAsName, readAsDescription)
	}
	rd := describe.For(ix).Parse(q)
	if !rd.Understood() {
		return nil, ""
	}
	sr = newReading(&rd, as)
	sr.rd = rd
	sr.Cards = s.exactCards(ix, &rd)
	names := ix.Perfumes(index.ListQuery{Q: q, Page: 1, Limit: 1})
	var top *index.Entry
	if len(names.Entries) > 0 {
		top = names.Entries[0]
	}
	if as == "" && len(sr.Cards) == 0 && strongNameMatch(q, &rd, top) {
		// The names lead; the description is offered under them, on
		// their first page.
		if page > 1 {
			return nil, ""
		}
		res, err := ix.Match(describedQuery(&rd, 1, offeredOnNamePage))
		if err != nil || res.Total == 0 {
			return nil, ""
		}
		sr.setItems(s, &rd, res)
		sr.All = searchURL(q, readAsDescription)
		return sr, ""
	}
	res, err := ix.Match(describedQuery(&rd, page, perfumesPerPage))
	if err != nil {
		return nil, "This description asks for too much at once: use fewer words."
	}
	if res.Total == 0 && as == "" {
		return nil, ""
	}
	sr.First = true
	sr.setItems(s, &rd, res)
	sr.Pager = web.NewPager(u, page, res.Pages, "as")
	sr.Names, sr.NamesURL = names.Total, searchURL(q, readAsName)
	return sr, ""
}

// cut shortens what a visitor wrote for an error message.
func cut(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// describedQuery is the match query of a reading (describe's Apply),
// ranked as the description ranking ranks (sort=popular): those meeting
// every term first, well-known first.
func describedQuery(rd *describe.Reading, page, limit int) index.MatchQuery {
	return rd.Apply(index.MatchQuery{Sort: index.SortPopular, Page: page, Limit: limit})
}

// strongNameMatch reports whether the first name result of q is the
// perfume q names: every word of q that is not a weak word is a word of
// its name or brand (a typo or, last, a prefix allowed; the brand also by
// the words rd read as it, "ysl"), and it is well known
// (strongNameRatings).
func strongNameMatch(q string, rd *describe.Reading, top *index.Entry) bool {
	if top == nil || top.RatingCount < strongNameRatings {
		return false
	}
	have := strings.Fields(search.Fold(top.Name() + " " + top.Brand()))
	for _, t := range rd.Terms {
		if t.Kind == describe.KindBrand && rd.BrandSlug == top.BrandSlug() {
			have = append(have, strings.Fields(t.Text)...)
		}
	}
	words := strings.Fields(search.Fold(q))
	weak := search.DefaultLexicon().Weak
	for i, w := range words {
		if weak[w] {
			continue
		}
		if !coversWord(have, w, i == len(words)-1) {
			return false
		}
	}
	return true
}

// coversWord reports whether have holds w, spelled with the typos the
// search tolerates, or, when prefix is set, a word w begins.
func coversWord(have []string, w string, prefix bool) bool {
	k := search.TyposFor(w)
	for _, h := range have {
		if h == w || (prefix && len(w) >= 2 && strings.HasPrefix(h, w)) || (k > 0 && search.Distance(h, w, k) <= k) {
			return true
		}
	}
	return false
}

// exactCards are the pages a query offers first when the whole of it is
// one note, accord or brand: "vanilla" is both an accord and a note,
// "tonka" the note Tonka Bean, "tom ford" a brand. None otherwise.
func (s *Site) exactCards(ix *index.Index, rd *describe.Reading) []exactCard {
	if len(rd.Terms) != 1 || len(rd.Ignored) > 0 || rd.Terms[0].Excluded {
		return nil
	}
	t := rd.Terms[0]
	var out []exactCard
	switch t.Kind {
	case describe.KindBrand:
		n := ix.Perfumes(index.ListQuery{Brand: rd.BrandSlug, Page: 1, Limit: 1}).Total
		out = append(out, exactCard{Kind: "Brand", Name: rd.Brand, URL: BrandURL(rd.BrandSlug), Count: n})
	case describe.KindScent:
		label := search.Fold(t.Value)
		for _, a := range rd.Accords {
			if search.Fold(a) == label {
				res, err := ix.Match(index.MatchQuery{Accords: []index.AccordWant{{Name: a, Strength: 100}}, Page: 1, Limit: 1})
				if err == nil {
					out = append(out, exactCard{Kind: "Accord", Name: a, URL: AccordURL(a), Color: s.urls.AccordColor(a), Count: res.Total})
				}
			}
		}
		for _, n := range rd.Notes {
			if search.Fold(n) == label {
				res, err := ix.Match(index.MatchQuery{Notes: []string{n}, Page: 1, Limit: 1})
				if err == nil {
					out = append(out, exactCard{Kind: "Note", Name: n, URL: NoteURL(n), Count: res.Total})
				}
			}
		}
	}
	return out
}

// newReading is the reading of q as the page shows it, without results;
// as is the page's as parameter, kept in the chips' links.
func newReading(rd *describe.Reading, as string) *searchReading {
	sr := &searchReading{Heading: readingHeading(rd), Ignored: rd.Ignored}
	for i := range rd.Terms {
		sr.Chips = append(sr.Chips, readingChip{Label: termLabel(rd.Terms[i]), Remove: searchURL(queryWithout(rd, i), as)})
	}
	return sr
}

// setItems fills the reading's results from a description match.
func (sr *searchReading) setItems(s *Site, rd *describe.Reading, res index.MatchResult) {
	sr.Total = res.Total
	perfumes := s.urls.Page(s.scoredPage(res)).Data
	terms := len(rd.Wants)
	for _, set := range []bool{rd.Gender != "", rd.Season != "", rd.Time != ""} {
		if set {
			terms++
		}
	}
	sr.Several = terms > 1
	sr.Items = make([]resultItem, len(perfumes))
	for i, p := range perfumes {
		sr.Items[i] = resultItem{Perfume: p}
		if terms > 1 {
			met := int(math.Round(res.Items[i].Score / 100 * float64(terms))) // Score is the share met, 0–100
			sr.Items[i].Meets = fmt.Sprintf("Has %d of %d", met, terms)
			if met == terms {
				sr.Items[i].Meets = fmt.Sprintf("Has all %d", terms)
			}
		}
	}
}

// searchURL is the search page of q, read as as ("" for both ways).
func searchURL(q, as string) string {
	v := url.Values{}
	if q != "" {
		v.Set("q", q)
	}
	if as != "" {
		v.Set("as", as)
	}
	if enc := v.Encode(); enc != "" {
		return "/search?" + enc
	}
	return "/search"
}

// queryWithout is the description rd read, written again without its
// term i: the other terms in order (an excluded one after "no"), then
// the words not understood, so that the search reads the same less that
// term.
func queryWithout(rd *describe.Reading, i int) string {
	var parts []string
	for j, t := range rd.Terms {
		switch {
		case j == i:
		case t.Excluded:
			parts = append(parts, "no "+t.Text)
		default:
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(append(parts, rd.Ignored...), " ")
}

// genderWords, timeWords are how a heading says a gender and a time of
// day.
var (
	genderWords = map[string]string{"masculine": "for men", "feminine": "for women", "unisex": "unisex"}
	timeWords   = map[string]string{"day": "for the day", "night": "for the evening"}
)

// termLabel is a chip's label: the scent ("vanilla", "Tonka Bean"), "no
// oud", "by Dior", "for men", "best in winter", "for the evening".
func termLabel(t describe.Term) string {
	switch {
	case t.Excluded:
		return "no " + t.Value
	case t.Kind == describe.KindBrand:
		return "by " + t.Value
	case t.Kind == describe.KindGender:
		return genderWords[t.Value]
	case t.Kind == describe.KindSeason:
		return "best in " + t.Value
	case t.Kind == describe.KindTime:
		return timeWords[t.Value]
	}
	return t.Value
}

// readingHeading says a reading in a sentence: "Perfumes with vanilla and
// tobacco, best in winter", "Perfumes by Dior for men without oud".
func readingHeading(rd *describe.Reading) string {
	var with, without []string
	for _, t := range rd.Terms {
		if t.Kind != describe.KindScent {
			continue
		}
		if t.Excluded {
			without = append(without, strings.ToLower(t.Value))
		} else {
			with = append(with, strings.ToLower(t.Value))
		}
	}
	var b strings.Builder
	b.WriteString("Perfumes")
	if rd.Gender == "unisex" {
		b.Reset()
		b.WriteString("Unisex perfumes")
	}
	if rd.Brand != "" {
		b.WriteString(" by " + rd.Brand)
	}
	if w := genderWords[string(rd.Gender)]; w != "" && rd.Gender != "unisex" {
		b.WriteString(" " + w)
	}
	if len(with) > 0 {
		b.WriteString(" with " + joinWords(with, "and"))
	}
	if len(without) > 0 {
		b.WriteString(" without " + joinWords(without, "or"))
	}
	// The season and the time follow a comma after what came before.
	sep := ", "
	if b.Len() == len("Perfumes") && rd.Gender == "" {
		sep = " "
	}
	if rd.Season != "" {
		b.WriteString(sep + "best in " + rd.Season)
		sep = ", "
	}
	if w := timeWords[rd.Time]; w != "" {
		b.WriteString(sep + w)
	}
	return b.String()
}

// joinWords joins words as a sentence does: "a", "a and b", "a, b and c".
func joinWords(words []string, conj string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
