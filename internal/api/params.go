package api

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// params reads and validates query parameters by the rules of package view,
// collecting every problem so the client sees them all in one answer.
type params struct {
	v    url.Values
	errs catalog.ParamErrors
}

func newParams(u *url.URL) *params {
	v, err := url.ParseQuery(u.RawQuery)
	p := &params{v: v}
	if err != nil {
		p.fail("query", "the query string is not valid URL encoding")
	}
	return p
}

func (p *params) fail(name, msg string) {
	p.errs = append(p.errs, &catalog.ParamError{Parameter: name, Message: msg})
}

// raw returns the single value of name. A parameter given more than once is
// refused rather than guessed at; an empty value counts as absent.
func (p *params) raw(name string) (string, bool) {
	vs := p.v[name]
	switch {
	case len(vs) == 0:
		return "", false
	case len(vs) > 1:
		p.fail(name, "given more than once; send it once")
		return "", false
	case !utf8.ValidString(vs[0]):
		p.fail(name, "not valid UTF-8")
		return "", false
	}
	s := strings.TrimSpace(vs[0])
	return s, s != ""
}

// text returns a free-text parameter (q, search), at most view.MaxTextLen
// characters.
func (p *params) text(name string) string {
	s, ok := p.raw(name)
	if !ok {
		return ""
	}
	if view.TextTooLong(s) {
		p.fail(name, "longer than "+strconv.Itoa(view.MaxTextLen)+" characters")
		return ""
	}
	return s
}

// positive returns a positive integer parameter, def when absent; a number
// too large for an int counts as the largest one.
func (p *params) positive(name string, def int) int {
	s, ok := p.raw(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		if err != nil && isDigits(s) {
			return int(^uint(0) >> 1) // a huge number: the caller clamps it
		}
		p.fail(name, "must be a positive whole number")
		return def
	}
	return n
}

// limit returns the limit parameter: its default when absent, clamped to
// its maximum (the contract clamps limit, never refuses it).
func (p *params) limit(l view.Limit) int {
	return l.Clamp(p.positive("limit", l.Default))
}

// page returns the page parameter: a positive integer, 1 by default.
func (p *params) page() int {
	n := p.positive("page", 1)
	if n > view.MaxPage {
		p.fail("page", "must be at most "+strconv.Itoa(view.MaxPage))
		return 1
	}
	return n
}

// oneOf returns a parameter that must be one of allowed (case-insensitive).
func (p *params) oneOf(name string, allowed []string) string {
	s, ok := p.raw(name)
	if !ok {
		return ""
	}
	if c, ok := view.Canonical(s, allowed); ok {
		return c
	}
	p.fail(name, "must be one of "+strings.Join(allowed, ", "))
	return ""
}

// list returns a comma-separated parameter as trimmed, non-empty items.
func (p *params) list(name string) []string {
	s, ok := p.raw(name)
	if !ok {
		return nil
	}
	if utf8.RuneCountInString(s) > view.MaxListLen {
		p.fail(name, "longer than "+strconv.Itoa(view.MaxListLen)+" characters")
		return nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	if len(out) > view.MaxListItems {
		p.fail(name, "at most "+strconv.Itoa(view.MaxListItems)+" items")
		return nil
	}
	return out
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
			p.errs = append(p.errs, perr)
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
			p.fail(name, "an exclusion is a name after \"-\", without a strength: "+strconv.Quote(item))
			continue
		}
		excluded = append(excluded, x)
	}
	return wanted, excluded
}

// err returns the collected problems, or nil.
func (p *params) err() error { return p.errs.Err() }

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
