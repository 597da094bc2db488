package view

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Params reads query parameters by the contract's rules, collecting every
// problem so that a client sees them all in one answer: the API's
// parameters and the website's filters are read by it alike.
type Params struct {
	v    url.Values
	errs catalog.ParamErrors
}

// NewParams reads v.
func NewParams(v url.Values) Params { return Params{v: v} }

// Values are the parameters read.
func (p *Params) Values() url.Values { return p.v }

// Err returns the problems collected, or nil.
func (p *Params) Err() error { return p.errs.Err() }

// Add adds problems found by the caller (values read but not valid).
func (p *Params) Add(e ...*catalog.ParamError) { p.errs = append(p.errs, e...) }

// Fail records a problem with parameter name.
func (p *Params) Fail(name, msg string) {
	p.errs = append(p.errs, &catalog.ParamError{Parameter: name, Message: msg})
}

// Raw returns the single value of name, trimmed; given twice is refused,
// empty counts as absent.
func (p *Params) Raw(name string) (string, bool) {
	vs := p.v[name]
	switch {
	case len(vs) == 0:
		return "", false
	case len(vs) > 1:
		p.Fail(name, "given more than once; send it once")
		return "", false
	case !utf8.ValidString(vs[0]):
		p.Fail(name, "not valid UTF-8")
		return "", false
	}
	s := strings.TrimSpace(vs[0])
	return s, s != ""
}

// Lower is a single value in lower case.
func (p *Params) Lower(name string) string {
	s, _ := p.Raw(name)
	return strings.ToLower(s)
}

// Text is a free-text parameter of at most MaxTextLen characters.
func (p *Params) Text(name string) string {
	s, ok := p.Raw(name)
	if !ok {
		return ""
	}
	if TextTooLong(s) {
		p.Fail(name, "longer than "+strconv.Itoa(MaxTextLen)+" characters")
		return ""
	}
	return s
}

// Positive is a positive integer parameter, def when absent; a number
// too large for an int counts as the largest one.
func (p *Params) Positive(name string, def int) int {
	s, ok := p.Raw(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		if err != nil && isDigits(s) {
			return int(^uint(0) >> 1)
		}
		p.Fail(name, "must be a positive whole number")
		return def
	}
	return n
}

// Limit is the limit parameter: its default when absent, clamped to its
// maximum (the contract clamps limit, never refuses it).
func (p *Params) Limit(l Limit) int { return l.Clamp(p.Positive("limit", l.Default)) }

// Page is the page parameter: a positive whole number, 1 by default, at
// most MaxPage.
func (p *Params) Page() int {
	n := p.Positive("page", 1)
	if n > MaxPage {
		p.Fail("page", "must be at most "+strconv.Itoa(MaxPage))
		return 1
	}
	return n
}

// List is a comma-separated parameter as trimmed, non-empty items, at
// most maxLen characters and maxItems items.
func (p *Params) List(name string, maxLen, maxItems int) []string {
	s, ok := p.Raw(name)
	if !ok {
		return nil
	}
	if utf8.RuneCountInString(s) > maxLen {
		p.Fail(name, "longer than "+strconv.Itoa(maxLen)+" characters")
		return nil
	}
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	if len(out) > maxItems {
		p.Fail(name, "at most "+strconv.Itoa(maxItems)+" items")
		return nil
	}
	return out
}
