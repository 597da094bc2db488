package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The perfume page's content is written in Go rather than by html/template:
// it is the page every search lands on, and the template spent most of a
// cold render calling functions and escapers through reflection. It writes
// what templates/perfume.html wrote, byte for byte (TestPerfumeContentMatchesTemplate
// renders the old template beside it, testdata/perfume_ref.html), and
// escapes every text as html/template does in the same place: htmlText for
// text and plain attributes, urlAttr for href and src.

// perfumeHTML is the content of a perfume page.
func perfumeHTML(p *perfumePage) template.HTML {
	var b strings.Builder
	b.Grow(12 << 10) // most pages are 8–12 kB
	b.WriteString("<article>\n<div class=\"product\">\n<div class=\"photo\"><img src=\"")
	urlAttr(&b, p.Picture)
	b.WriteString(`" alt="Bottle of `)
	htmlText(&b, p.Name)
	b.WriteString(" by ")
	htmlText(&b, p.Brand)
	b.WriteString("\" width=\"375\" height=\"500\"></div>\n<div>\n<h1>")
	htmlText(&b, p.Name)
	b.WriteString("</h1>\n<p>by <a href=\"")
	urlAttr(&b, BrandURL(p.BrandSlug))
	b.WriteString(`">`)
	htmlText(&b, p.Brand)
	b.WriteString("</a>")
	if p.Year != nil {
		b.WriteString(" · ")
		b.WriteString(strconv.Itoa(*p.Year))
	}
	if p.Concentration != nil {
		b.WriteString(" · ")
		htmlText(&b, *p.Concentration)
	}
	b.WriteString("</p>\n")
	if p.Rating != nil {
		b.WriteString(`<p class="rating"><strong>`)
		htmlText(&b, web.Decimal(*p.Rating, 2))
		b.WriteString("</strong> of 5 from ")
		htmlText(&b, web.Thousands(p.RatingCount))
		b.WriteString(" rating")
		if p.RatingCount != 1 {
			b.WriteString("s")
		}
		b.WriteString("</p>\n")
	} else {
		b.WriteString("<p class=\"muted\">No ratings yet.</p>")
	}
	b.WriteString("\n<dl class=\"facts\">")
	for _, f := range p.Facts {
		b.WriteString("<dt>")
		htmlText(&b, f.Label)
		b.WriteString("</dt><dd>")
		if f.Link != "" {
			b.WriteString(`<a href="`)
			urlAttr(&b, f.Link)
			b.WriteString(`">`)
			htmlText(&b, f.Value)
			b.WriteString("</a>")
		} else {
			htmlText(&b, f.Value)
		}
		b.WriteString("</dd>\n")
	}
	if len(p.Perfumers) > 0 {
		b.WriteString("<dt>Perfumer")
		if len(p.Perfumers) > 1 {
			b.WriteString("s")
		}
		b.WriteString("</dt><dd>")
		for i, pf := range p.Perfumers {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`<a href="`)
			urlAttr(&b, PerfumerURL(pf.Slug))
			b.WriteString(`">`)
			htmlText(&b, pf.Name)
			b.WriteString("</a>")
		}
		b.WriteString("</dd>")
	}
	b.WriteString("\n</dl>\n<p class=\"buy\"><a class=\"btn\" href=\"")
	urlAttr(&b, p.BuyURL)
	b.WriteString("\" rel=\"nofollow\">Find it in a shop</a></p>\n")
	if len(p.Accords) > 0 {
		b.WriteString("<section aria-labelledby=\"accords-h\">\n<h2 id=\"accords-h\">Main accords</h2>\n<ul class=\"bars\">")
		for _, a := range p.Accords {
			b.WriteString(`<li><a href="`)
			urlAttr(&b, AccordURL(a.Name))
			b.WriteString(`">`)
			htmlText(&b, a.Name)
			b.WriteString("</a>\n" + `<svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="100" height="10" rx="2" fill="#eeeaf2"/><rect width="`)
			// The template printed the float as fmt does.
			htmlText(&b, fmt.Sprint(a.Strength))
			b.WriteString(`" height="10" rx="2" fill="`)
			htmlText(&b, a.Color)
			b.WriteString("\"/></svg>\n<span class=\"v\">")
			htmlText(&b, web.Decimal(a.Strength, 0))
			b.WriteString("</span></li>")
		}
		b.WriteString("</ul>\n</section>")
	}
	b.WriteString("\n</div>\n</div>\n")
	if p.Description != "" {
		b.WriteString("<section aria-labelledby=\"about-h\">\n<h2 id=\"about-h\">About this perfume</h2>\n<p>")
		htmlText(&b, p.Description)
		b.WriteString("</p>\n</section>")
	}
	b.WriteString("\n")
	if len(p.Layers) > 0 {
		b.WriteString("<section aria-labelledby=\"notes-h\">\n<h2 id=\"notes-h\">Notes</h2>\n<div class=\"pyramid\">")
		for _, l := range p.Layers {
			b.WriteString("<div>\n<h3>")
			htmlText(&b, l.Name)
			b.WriteString("</h3>\n<ul class=\"chips\">")
			for _, n := range l.Notes {
				b.WriteString(`<li><a href="`)
				urlAttr(&b, NoteURL(n.Name))
				b.WriteString(`">`)
				htmlText(&b, n.Name)
				b.WriteString("</a></li>")
			}
			b.WriteString("</ul>\n</div>")
		}
		b.WriteString("</div>\n</section>")
	}
	b.WriteString("\n<section aria-labelledby=\"wear-h\">\n<h2 id=\"wear-h\">When to wear it</h2>\n<div class=\"charts\">")
	b.WriteString(string(p.Seasons.HTML()))
	b.WriteString(string(p.DayNight.HTML()))
	b.WriteString("</div>\n</section>\n")
	if len(p.SimilarPerfumes) > 0 {
		b.WriteString("<section aria-labelledby=\"similar-h\">\n<h2 id=\"similar-h\">Similar perfumes</h2>\n<ul class=\"grid\">")
		for i := range p.SimilarPerfumes {
			s := &p.SimilarPerfumes[i]
			card(&b, s)
			htmlText(&b, s.Brand)
			b.WriteString("</span>\n<span class=\"meta\">")
			htmlText(&b, web.Decimal(s.MatchScore, 0))
			b.WriteString("% alike</span>\n</article></li>")
		}
		b.WriteString("</ul>\n</section>")
	}
	b.WriteString("\n")
	if len(p.Dupes) > 0 {
		b.WriteString("<section aria-labelledby=\"dupes-h\">\n<h2 id=\"dupes-h\">Cheaper alternatives</h2>\n" +
			"<p class=\"muted\">Alike in accords and notes, from brands of a lower price tier.</p>\n<ul class=\"grid\">")
		for i := range p.Dupes {
			d := &p.Dupes[i]
			card(&b, &d.Similar)
			htmlText(&b, d.Brand)
			b.WriteString(" · ")
			htmlText(&b, d.PriceTier)
			b.WriteString("</span>\n<span class=\"meta\">")
			htmlText(&b, web.Decimal(d.MatchScore, 0))
			b.WriteString("% alike</span>")
			if d.Rating != nil {
				b.WriteString("\n<span class=\"meta\">Rated ")
				htmlText(&b, web.Decimal(*d.Rating, 2))
				b.WriteString(" of 5</span>")
			}
			b.WriteString("\n</article></li>")
		}
		b.WriteString("</ul>\n</section>")
	}
	b.WriteString("\n</article>")
	return template.HTML(b.String())
}

// card writes the start of a similar perfume's card, up to its first meta
// line's text.
func card(b *strings.Builder, s *view.Similar) {
	b.WriteString("<li><article class=\"card\">\n<a href=\"")
	urlAttr(b, PerfumeURL(s.Slug))
	b.WriteString(`"><img src="`)
	urlAttr(b, picture(s.ImageTransparentAvailable, s.ImageTransparent, s.Image))
	b.WriteString("\" alt=\"\" width=\"150\" height=\"200\" loading=\"lazy\">\n<span class=\"name\">")
	htmlText(b, s.Name)
	b.WriteString("</span></a>\n<span class=\"meta\">")
}

// htmlText writes s escaped as html/template escapes a string in text and
// in a quoted attribute: NUL, quotes, &, + and angle brackets (other
// bytes, invalid UTF-8 included, pass as they are).
func htmlText(b *strings.Builder, s string) {
	from := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case 0:
			r = "\uFFFD"
		case '"':
			r = "&#34;"
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '+':
			r = "&#43;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		default:
			continue
		}
		b.WriteString(s[from:i])
		b.WriteString(r)
		from = i + 1
	}
	b.WriteString(s[from:])
}

// urlAttr writes s as html/template writes a string that makes a whole
// href or src attribute: a scheme other than http, https or mailto
// becomes "#ZgotmplZ"; bytes that do not belong in a URL are
// percent-encoded (valid escapes are kept); then it is escaped as an
// attribute.
func urlAttr(b *strings.Builder, s string) {
	if !safeURL(s) {
		b.WriteString("#ZgotmplZ")
		return
	}
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			continue
		case strings.IndexByte("-._~!#$*,/:;=?@[]", c) >= 0:
			continue
		case c == '&':
			b.WriteString(s[from:i])
			b.WriteString("&amp;")
		case c == '+':
			b.WriteString(s[from:i])
			b.WriteString("&#43;")
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			continue
		default:
			b.WriteString(s[from:i])
			const hex = "0123456789abcdef"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
		from = i + 1
	}
	// What is left holds none of the bytes htmlText escapes.
	b.WriteString(s[from:])
}

// safeURL is html/template's test of a URL's scheme.
func safeURL(s string) bool {
	if protocol, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(protocol, "/") {
		return strings.EqualFold(protocol, "http") || strings.EqualFold(protocol, "https") || strings.EqualFold(protocol, "mailto")
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
