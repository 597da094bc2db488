package site

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site/htmlwrite"
)

// The perfume page's content is written in Go rather than by html/template:
// it is the page every search lands on, and the template spent most of a
// cold render calling functions and escapers through reflection. It writes
// what templates/perfume.html wrote, byte for byte (TestPerfumeContentMatchesTemplate
// renders the old template beside it, testdata/perfume_ref.html), and
// escapes every text as html/template does in the same place (package
// htmlwrite): Text for text and plain attributes, URL for href and src.

// perfumeHTML is the content of a perfume page.
func perfumeHTML(p *perfumePage) template.HTML {
	var b strings.Builder
	b.Grow(12 << 10) // most pages are 8–12 kB
	b.WriteString("<article>\n<div class=\"product\">\n<div class=\"photo\"><img src=\"")
	htmlwrite.URL(&b, p.Picture)
	b.WriteString(`" alt="Bottle of `)
	htmlwrite.Text(&b, p.Name)
	b.WriteString(" by ")
	htmlwrite.Text(&b, p.Brand)
	b.WriteString("\" width=\"375\" height=\"500\"></div>\n<div>\n<h1>")
	htmlwrite.Text(&b, p.Name)
	b.WriteString("</h1>\n<p>by <a href=\"")
	htmlwrite.URL(&b, BrandURL(p.BrandSlug))
	b.WriteString(`">`)
	htmlwrite.Text(&b, p.Brand)
	b.WriteString("</a>")
	if p.Year != nil {
		b.WriteString(" · ")
		b.WriteString(strconv.Itoa(*p.Year))
	}
	if p.Concentration != nil {
		b.WriteString(" · ")
		htmlwrite.Text(&b, *p.Concentration)
	}
	b.WriteString("</p>\n")
	if p.Rating != nil {
		b.WriteString(`<p class="rating"><strong>`)
		htmlwrite.Text(&b, web.Decimal(*p.Rating, 2))
		b.WriteString("</strong> of 5 from ")
		htmlwrite.Text(&b, web.Thousands(p.RatingCount))
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
		htmlwrite.Text(&b, f.Label)
		b.WriteString("</dt><dd>")
		if f.Link != "" {
			b.WriteString(`<a href="`)
			htmlwrite.URL(&b, f.Link)
			b.WriteString(`">`)
			htmlwrite.Text(&b, f.Value)
			b.WriteString("</a>")
		} else {
			htmlwrite.Text(&b, f.Value)
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
			htmlwrite.URL(&b, PerfumerURL(pf.Slug))
			b.WriteString(`">`)
			htmlwrite.Text(&b, pf.Name)
			b.WriteString("</a>")
		}
		b.WriteString("</dd>")
	}
	b.WriteString("\n</dl>\n<p class=\"buy\"><a class=\"btn\" href=\"")
	htmlwrite.URL(&b, p.BuyURL)
	b.WriteString("\" rel=\"nofollow\">Find it in a shop</a></p>\n")
	if len(p.Accords) > 0 {
		b.WriteString("<section aria-labelledby=\"accords-h\">\n<h2 id=\"accords-h\">Main accords</h2>\n<ul class=\"bars\">")
		for _, a := range p.Accords {
			b.WriteString(`<li><a href="`)
			htmlwrite.URL(&b, AccordURL(a.Name))
			b.WriteString(`">`)
			htmlwrite.Text(&b, a.Name)
			b.WriteString("</a>\n" + `<svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="100" height="10" rx="2" fill="#eeeaf2"/><rect width="`)
			// The template printed the float as fmt does.
			htmlwrite.Text(&b, fmt.Sprint(a.Strength))
			b.WriteString(`" height="10" rx="2" fill="`)
			htmlwrite.Text(&b, a.Color)
			b.WriteString("\"/></svg>\n<span class=\"v\">")
			htmlwrite.Text(&b, web.Decimal(a.Strength, 0))
			b.WriteString("</span></li>")
		}
		b.WriteString("</ul>\n</section>")
	}
	b.WriteString("\n</div>\n</div>\n")
	if p.Description != "" {
		b.WriteString("<section aria-labelledby=\"about-h\">\n<h2 id=\"about-h\">About this perfume</h2>\n<p>")
		htmlwrite.Text(&b, p.Description)
		b.WriteString("</p>\n</section>")
	}
	b.WriteString("\n")
	if len(p.Layers) > 0 {
		b.WriteString("<section aria-labelledby=\"notes-h\">\n<h2 id=\"notes-h\">Notes</h2>\n<div class=\"pyramid\">")
		for _, l := range p.Layers {
			b.WriteString("<div>\n<h3>")
			htmlwrite.Text(&b, l.Name)
			b.WriteString("</h3>\n<ul class=\"chips\">")
			for _, n := range l.Notes {
				b.WriteString(`<li><a href="`)
				htmlwrite.URL(&b, NoteURL(n.Name))
				b.WriteString(`">`)
				htmlwrite.Text(&b, n.Name)
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
			htmlwrite.Text(&b, s.Brand)
			b.WriteString("</span>\n<span class=\"meta\">")
			htmlwrite.Text(&b, web.Decimal(s.MatchScore, 0))
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
			htmlwrite.Text(&b, d.Brand)
			b.WriteString(" · ")
			htmlwrite.Text(&b, d.PriceTier)
			b.WriteString("</span>\n<span class=\"meta\">")
			htmlwrite.Text(&b, web.Decimal(d.MatchScore, 0))
			b.WriteString("% alike</span>")
			if d.Rating != nil {
				b.WriteString("\n<span class=\"meta\">Rated ")
				htmlwrite.Text(&b, web.Decimal(*d.Rating, 2))
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
	htmlwrite.URL(b, PerfumeURL(s.Slug))
	b.WriteString(`"><img src="`)
	htmlwrite.URL(b, picture(s.ImageTransparentAvailable, s.ImageTransparent, s.Image))
	b.WriteString("\" alt=\"\" width=\"150\" height=\"200\" loading=\"lazy\">\n<span class=\"name\">")
	htmlwrite.Text(b, s.Name)
	b.WriteString("</span></a>\n<span class=\"meta\">")
}
