package view

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// BrowseParams are the parameters of a perfume list beyond q, brand, page
// and limit: a list without any of them takes the plain list's path
// (index.Index.Perfumes), whose answers the golden files pin.
var BrowseParams = []string{"gender", "accords", "notes", "season", "time", "year", "minRating", "sort", "facets", "ids"}

// MaxIDsLen is the longest ids parameter, in characters: MaxIDs slugs of
// the longest text a parameter takes, and their commas.
const MaxIDsLen = index.MaxIDs * (MaxTextLen + 1)

// ParseBrowse reads a perfume list's query (GET /api/perfumes, and the
// website's filtered pages) by the contract's rules: q, brand, page and
// limit as ever, gender (a comma list), accords and notes (comma lists,
// all required; a leading "-" excludes), season, time, year (2015,
// 2010-2020, 2015-, -1990), minRating (0–5), sort, facets (a comma list)
// and ids (1–100 slugs, alone or with page and limit only).
//
// Its errors are catalog.ParamErrors naming each parameter, every one
// found at once. Values are passed on as given (case aside): the index's
// Browse refuses those the catalogue does not know (a gender, season,
// time, sort, facet, accord or note), with suggestions, so a caller
// answers 400 for either error.
func ParseBrowse(v url.Values) (index.BrowseQuery, error) {
	r := &Params{v: v}
	q := index.BrowseQuery{
		Q:     r.Text("q"),
		Brand: r.Text("brand"),
		Page:  r.Page(),
		Limit: r.Limit(PerfumesLimit),
	}
	for _, g := range r.List("gender", MaxListLen, len(Genders)) {
		q.Genders = append(q.Genders, catalog.Gender(strings.ToLower(g)))
	}
	q.Accords, q.NotAccords = r.Signed("accords", "an accord")
	q.Notes, q.NotNotes = r.Signed("notes", "a note")
	q.Season = r.Lower("season")
	q.Time = r.Lower("time")
	q.Sort = r.Lower("sort")
	for _, f := range r.List("facets", MaxListLen, len(index.FacetNames)) {
		if f = strings.ToLower(f); !slices.Contains(q.Facets, f) {
			q.Facets = append(q.Facets, f)
		}
	}
	if s, ok := r.Raw("year"); ok {
		y, err := ParseYearRange(s)
		if err != nil {
			r.Add(err)
		}
		q.Years = y
	}
	if s, ok := r.Raw("minRating"); ok {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 5 || f != f {
			r.Fail("minRating", "must be a number from 0 to 5")
		} else if f != 0 {
			// -0 is no least rating, as 0 is, and reads back as it.
			q.MinRating = f
		}
	}
	if _, given := v["ids"]; given {
		q.IDs = r.List("ids", MaxIDsLen, index.MaxIDs)
		if len(q.IDs) == 0 && r.Err() == nil {
			r.Fail("ids", "name at least one perfume slug")
		}
		for _, name := range append([]string{"q", "brand"}, BrowseParams...) {
			if _, also := v[name]; also && name != "ids" {
				r.Fail(name, "cannot be combined with ids, a lookup of the perfumes named")
			}
		}
	}
	return q, r.Err()
}

// BrowseValues is the query that ParseBrowse reads back as q: a page
// builds its links (another page, a filter added or taken away) from it.
// Defaults are left out (page 1, the default limit), so the shortest
// address names each list.
func BrowseValues(q index.BrowseQuery) url.Values {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("q", q.Q)
	set("brand", q.Brand)
	genders := make([]string, len(q.Genders))
	for i, g := range q.Genders {
		genders[i] = string(g)
	}
	set("gender", strings.Join(genders, ","))
	set("accords", signedList(q.Accords, q.NotAccords))
	set("notes", signedList(q.Notes, q.NotNotes))
	set("season", q.Season)
	set("time", q.Time)
	if !q.Years.Any() {
		y := ""
		if q.Years.From != 0 {
			y = strconv.Itoa(q.Years.From)
		}
		if q.Years.To != q.Years.From || q.Years.From == 0 {
			y += "-"
			if q.Years.To != 0 {
				y += strconv.Itoa(q.Years.To)
			}
		}
		set("year", y)
	}
	if q.MinRating != 0 {
		set("minRating", strconv.FormatFloat(q.MinRating, 'g', -1, 64))
	}
	set("sort", q.Sort)
	set("facets", strings.Join(q.Facets, ","))
	set("ids", strings.Join(q.IDs, ","))
	if q.Page > 1 {
		set("page", strconv.Itoa(q.Page))
	}
	if q.Limit != 0 && q.Limit != PerfumesLimit.Default {
		set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// signedList joins names required and, each after a "-", names excluded.
func signedList(want, not []string) string {
	items := slices.Clone(want)
	for _, n := range not {
		items = append(items, "-"+n)
	}
	return strings.Join(items, ",")
}

// IsPlainList reports whether q asks for nothing but q, brand, page and
// limit: the plain list, answered by index.Index.Perfumes.
func IsPlainList(q index.BrowseQuery) bool {
	return len(q.Genders) == 0 && len(q.Accords) == 0 && len(q.NotAccords) == 0 && len(q.Notes) == 0 &&
		len(q.NotNotes) == 0 && q.Season == "" && q.Time == "" && q.Years.Any() && q.MinRating == 0 &&
		q.Sort == "" && len(q.Facets) == 0 && len(q.IDs) == 0
}

// ParseYearRange reads a year parameter: one year (2015), a range
// (2010-2020), a start (2015-) or an end (-1990); years are 1–9999.
func ParseYearRange(s string) (index.YearRange, *catalog.ParamError) {
	bad := &catalog.ParamError{Parameter: "year", Message: "must be a year (2015) or a range of years (2010-2020, 2015-, -1990); got " + strconv.Quote(s)}
	from, to, isRange := strings.Cut(strings.TrimSpace(s), "-")
	year := func(s string) (int, bool) {
		s = strings.TrimSpace(s)
		if s == "" || len(s) > 4 || !isDigits(s) {
			return 0, false
		}
		n, _ := strconv.Atoi(s)
		return n, n >= 1
	}
	var r index.YearRange
	var ok bool
	switch {
	case !isRange:
		if r.From, ok = year(from); !ok {
			return index.YearRange{}, bad
		}
		r.To = r.From
	case strings.TrimSpace(from) == "" && strings.TrimSpace(to) == "":
		return index.YearRange{}, bad
	default:
		if strings.TrimSpace(from) != "" {
			if r.From, ok = year(from); !ok {
				return index.YearRange{}, bad
			}
		}
		if strings.TrimSpace(to) != "" {
			if r.To, ok = year(to); !ok {
				return index.YearRange{}, bad
			}
		}
	}
	if r.From != 0 && r.To != 0 && r.From > r.To {
		return index.YearRange{}, &catalog.ParamError{Parameter: "year", Message: "the range starts (" + strconv.Itoa(r.From) + ") after it ends (" + strconv.Itoa(r.To) + ")"}
	}
	return r, nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Signed is an accords or notes list: names required, and those with a
// leading "-" excluded; kind names an item ("an accord").
func (p *Params) Signed(name, kind string) (want, not []string) {
	for _, item := range p.List(name, MaxListLen, MaxListItems) {
		n, neg := strings.CutPrefix(item, "-")
		if n = strings.TrimSpace(n); n == "" {
			p.Fail(name, kind+" name is empty in "+strconv.Quote(item))
			continue
		}
		if neg {
			not = append(not, n)
		} else {
			want = append(want, n)
		}
	}
	return want, not
}
