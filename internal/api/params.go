package api

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// params reads and validates query parameters by the rules of package view
// (view.Params), collecting every problem so the client sees them all in
// one answer, plus the API's own: one of a set, match's accords and the
// exclusions.
type params struct{ view.Params }

func newParams(u *url.URL) *params {
	v, err := url.ParseQuery(u.RawQuery)
	p := &params{view.NewParams(v)}
	if err != nil {
		p.Fail("query", "the query string is not valid URL encoding")
	}
	return p
}

// oneOf returns a parameter that must be one of allowed (case-insensitive).
func (p *params) oneOf(name string, allowed []string) string {
	s, ok := p.Raw(name)
	if !ok {
		return ""
	}
	if c, ok := view.Canonical(s, allowed); ok {
		return c
	}
	p.Fail(name, "must be one of "+strings.Join(allowed, ", "))
	return ""
}

// list returns a comma-separated parameter as trimmed, non-empty items,
// within the contract's bounds on a list.
func (p *params) list(name string) []string {
	return p.List(name, view.MaxListLen, view.MaxListItems)
}

// accordWants returns match's accords: "woody:40,vanilla" as names with
// strengths (100 when not given), reporting the items that are not valid,
// and apart the names excluded with a leading "-" ("-sweet").
func (p *params) accordWants(name string) ([]index.AccordWant, []string) {
	items, excluded := p.excluding(name, p.list(name))
	var out []index.AccordWant
	for _, item := range items {
		w, perr := view.ParseAccordWant(item)
		if perr != nil {
			p.Add(perr)
			continue
		}
		out = append(out, w)
	}
	return out, excluded
}

// excluding splits a list into the items wanted and the names of those
// excluded by a leading "-" (which take no strength).
func (p *params) excluding(name string, items []string) (wanted, excluded []string) {
	for _, item := range items {
		x, ok := strings.CutPrefix(item, "-")
		if !ok {
			wanted = append(wanted, item)
			continue
		}
		if x = strings.TrimSpace(x); x == "" || strings.Contains(x, ":") {
			p.Fail(name, "an exclusion is a name after \"-\", without a strength: "+strconv.Quote(item))
			continue
		}
		excluded = append(excluded, x)
	}
	return wanted, excluded
}

// err returns the collected problems, or nil.
func (p *params) err() error { return p.Err() }

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
