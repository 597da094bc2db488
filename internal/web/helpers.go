package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// funcs are the template functions every area shares.
func (s *Ground) funcs() template.FuncMap {
	return template.FuncMap{
		"asset": s.assets.URL,
		"num":   Thousands,
		"dec":   Decimal,
		"add":   func(a, b int) int { return a + b },
	}
}

// Thousands writes n with thousands separators: 32551 → "32,551".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Decimal writes f with at most digits decimals, without trailing zeros:
// Decimal(3.50, 2) is "3.5".
func Decimal(f float64, digits int) string {
	p := math.Pow(10, float64(digits))
	return strconv.FormatFloat(math.Round(f*p)/p, 'f', -1, 64)
}

// MarshalJSONLD encodes a structured-data block for Page.JSONLD.
// encoding/json escapes <, > and &, so the block cannot end its script
// element early.
func MarshalJSONLD(v any) (template.JS, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return template.JS(b), nil
}

// Pager is the paging of a list page: links to the previous and next
// pages and to a few pages around the current one.
type Pager struct {
	Page, Pages int
	Prev, Next  string
	Links       []PageLink
}

// PageLink is one numbered page link; Current marks the page shown.
type PageLink struct {
	N       int
	URL     string
	Current bool
}

// NewPager is the paging of page (1-based) of pages for the list at u:
// each link is u's path with its search (q) and the parameters named in
// keep (a list's filter: "group") kept, and its page parameter set (page 1
// without one). Nothing else a visitor put in the address is repeated in
// the links (an api_key, say).
func NewPager(u *url.URL, page, pages int, keep ...string) Pager {
	p := Pager{Page: page, Pages: pages}
	if pages <= 1 {
		return p
	}
	asked := u.Query()
	link := func(n int) string {
		q := url.Values{}
		for _, k := range append([]string{"q"}, keep...) {
			if s := asked.Get(k); s != "" {
				q.Set(k, s)
			}
		}
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		if enc := q.Encode(); enc != "" {
			return u.Path + "?" + enc
		}
		return u.Path
	}
	if page > 1 {
		p.Prev = link(min(page-1, pages))
	}
	if page < pages {
		p.Next = link(page + 1)
	}
	from, to := max(1, page-2), min(pages, page+2)
	for n := from; n <= to; n++ {
		p.Links = append(p.Links, PageLink{N: n, URL: link(n), Current: n == page})
	}
	return p
}

// PageParam reads the page parameter of a list page: 1 when absent; ok is
// false when it is not a whole number from 1 to maxPage.
func PageParam(u *url.URL, maxPage int) (page int, ok bool) {
	v := u.Query().Get("page")
	if v == "" {
		return 1, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPage {
		return 0, false
	}
	return n, true
}

// WaitText writes a wait of seconds for people ("a minute", "5 minutes",
// "2 hours"), rounded up: what a limited visitor reads.
func WaitText(seconds int64) string {
	switch {
	case seconds <= 60:
		return "a minute"
	case seconds < 3600:
		return fmt.Sprintf("%d minutes", (seconds+59)/60)
	default:
		return fmt.Sprintf("%d hours", (seconds+3599)/3600)
	}
}

// mdSpecial are the characters that mean something in Markdown text.
var mdSpecial = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, "|", `\|`)

// MarkdownText escapes s for a Markdown twin, so that a name or a
// description reads as the text it is (no link, emphasis or HTML of its
// own); runs of white space, line breaks included, become one space.
func MarkdownText(s string) string {
	return mdSpecial.Replace(strings.Join(strings.Fields(s), " "))
}

// MarkdownCode is s as the text of a Markdown code span (a slug): on one
// line, with no backtick to end the span early.
func MarkdownCode(s string) string {
	return "`" + strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "'") + "`"
}
