package api

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// maxTextLen is the longest q or search the contract accepts, in characters.
const maxTextLen = 200

// maxPage bounds page so that offsets never overflow; a page past the last
// one answers an empty list anyway.
const maxPage = 1_000_000

// params reads and validates query parameters, collecting every problem so
// the client sees them all in one answer.
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

// text returns a free-text parameter (q, search), at most maxTextLen characters.
func (p *params) text(name string) string {
	s, ok := p.raw(name)
	if !ok {
		return ""
	}
	if utf8.RuneCountInString(s) > maxTextLen {
		p.fail(name, "longer than 200 characters")
		return ""
	}
	return s
}

// positive returns a positive integer parameter, def when absent, and max
// as a clamp when max > 0 (the contract clamps limit, never refuses it).
func (p *params) positive(name string, def, max int) int {
	s, ok := p.raw(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		if err != nil && isDigits(s) {
			n = int(^uint(0) >> 1) // a huge number: clamp below
		} else {
			p.fail(name, "must be a positive whole number")
			return def
		}
	}
	if max > 0 && n > max {
		n = max
	}
	return n
}

// page returns the page parameter: a positive integer, 1 by default.
func (p *params) page() int {
	n := p.positive("page", 1, 0)
	if n > maxPage {
		p.fail("page", "must be at most 1000000")
		return 1
	}
	return n
}

// oneOf returns a parameter that must be one of allowed (case-insensitive).
func (p *params) oneOf(name string, allowed ...string) string {
	s, ok := p.raw(name)
	if !ok {
		return ""
	}
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	p.fail(name, "must be one of "+strings.Join(allowed, ", "))
	return ""
}

// list returns a comma-separated parameter as trimmed, non-empty items.
func (p *params) list(name string, maxItems int) []string {
	s, ok := p.raw(name)
	if !ok {
		return nil
	}
	if utf8.RuneCountInString(s) > 1000 {
		p.fail(name, "longer than 1000 characters")
		return nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	if len(out) > maxItems {
		p.fail(name, "at most "+strconv.Itoa(maxItems)+" items")
		return nil
	}
	return out
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

// accordWant is one "name[:strength]" item of match's accords parameter.
type accordWant struct {
	name     string
	strength float64
}

// parseAccordWants parses "woody:40,vanilla" into names with strengths
// (100 when not given), reporting strengths that are not numbers in 0–100.
func parseAccordWants(p *params, items []string) []accordWant {
	out := make([]accordWant, 0, len(items))
	for _, item := range items {
		name, num, hasNum := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		w := accordWant{name: name, strength: 100}
		if name == "" {
			p.fail("accords", "an accord name is empty in "+strconv.Quote(item))
			continue
		}
		if hasNum {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || f < 0 || f > 100 || f != f {
				p.fail("accords", "strength of "+strconv.Quote(name)+" must be a number from 0 to 100")
				continue
			}
			w.strength = f
		}
		out = append(out, w)
	}
	return out
}
