package site

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// The Markdown twins: /perfumes/{slug}.md and /brands/{slug}.md, a
// compact, factual text of the page for a language model. Slugs are made
// of a-z, 0-9 and "-" only (search.Slugify), so none ends in ".md" and the
// suffix tells a twin from a page.
const mdSuffix = ".md"

// brandPerfumesInMarkdown is the most perfumes a brand's twin lists.
const brandPerfumesInMarkdown = 100

// PerfumeMarkdownURL is the path of a perfume's Markdown twin.
func PerfumeMarkdownURL(slug string) string { return PerfumeURL(slug) + mdSuffix }

// BrandMarkdownURL is the path of a brand's Markdown twin.
func BrandMarkdownURL(slug string) string { return BrandURL(slug) + mdSuffix }

// PerfumeMarkdown is the Markdown text of the perfume slug, the same as
// /perfumes/{slug}.md serves (the MCP server's perfume resource); false
// when there is no such perfume or the catalogue is not loaded yet.
func (s *Site) PerfumeMarkdown(slug string) (string, bool) {
	ix := s.cat.Load()
	if ix == nil {
		return "", false
	}
	md, err := s.perfumeMarkdown(ix, slug)
	return md, err == nil
}

// markdownTwin answers a Markdown twin made by text, or a short Markdown
// 404 when what it names does not exist.
func (s *Site) markdownTwin(w http.ResponseWriter, r *http.Request, what string, text func() (string, error)) {
	md, err := text()
	if errors.Is(err, catalog.ErrNotFound) {
		s.web.Text(w, r, http.StatusNotFound, web.MarkdownType,
			"# Not found\n\nThere is no "+what+" with this slug. Search the catalogue: "+s.base+"/search\n")
		return
	}
	if err != nil {
		s.web.ServerError(w, r, err)
		return
	}
	s.web.Text(w, r, http.StatusOK, web.MarkdownType, md)
}

// perfumeMarkdown writes the twin of a perfume page from the same values
// the page shows (perfumeData).
func (s *Site) perfumeMarkdown(ix *index.Index, slug string) (string, error) {
	p, err := s.perfumeData(ix, slug)
	if err != nil {
		return "", err
	}
	return s.perfumeText(p), nil
}

// perfumeText is the Markdown of a perfume page's values.
func (s *Site) perfumeText(p *perfumePage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s by %s\n\n", web.MarkdownText(p.Name), web.MarkdownText(p.Brand))
	if d := summary(p.Description, 300); d != "" {
		fmt.Fprintf(&b, "> %s\n\n", web.MarkdownText(d))
	}
	fmt.Fprintf(&b, "- Slug: %s\n", web.MarkdownCode(p.Slug))
	fmt.Fprintf(&b, "- Brand: [%s](%s) (slug %s)\n", web.MarkdownText(p.Brand), s.base+BrandMarkdownURL(p.BrandSlug), web.MarkdownCode(p.BrandSlug))
	facts := p.Facts
	if len(facts) > 0 && facts[0].Link != "" {
		facts = facts[1:] // the brand, written above with its twin
	}
	for _, f := range facts {
		fmt.Fprintf(&b, "- %s: %s\n", web.MarkdownText(f.Label), web.MarkdownText(f.Value))
	}
	if p.Rating != nil {
		fmt.Fprintf(&b, "- Rating: %s of 5 from %s ratings\n", web.Decimal(*p.Rating, 2), web.Thousands(p.RatingCount))
	}
	if len(p.Perfumers) > 0 {
		names := make([]string, len(p.Perfumers))
		for i, c := range p.Perfumers {
			names[i] = fmt.Sprintf("%s (%s)", web.MarkdownText(c.Name), web.MarkdownCode(c.Slug))
		}
		fmt.Fprintf(&b, "- Perfumers: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "- Web page: %s\n- API: %s (needs a key)\n", s.base+PerfumeURL(p.Slug), s.base+"/api"+PerfumeURL(p.Slug))

	if len(p.Accords) > 0 {
		b.WriteString("\n## Accords\n\nStrength from 0 to 100.\n\n| Accord | Strength |\n|---|---|\n")
		for _, a := range p.Accords {
			fmt.Fprintf(&b, "| %s | %s |\n", web.MarkdownText(a.Name), web.Decimal(a.Strength, 1))
		}
	}
	if len(p.Layers) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, l := range p.Layers {
			names := make([]string, len(l.Notes))
			for i, n := range l.Notes {
				names[i] = web.MarkdownText(n.Name)
			}
			fmt.Fprintf(&b, "- %s: %s\n", web.MarkdownText(l.Name), strings.Join(names, ", "))
		}
	}
	b.WriteString("\n## When to wear it\n\nShare of votes, 0 to 100.\n\n")
	se, dn := p.Detail.Seasons, p.Detail.DayNight
	fmt.Fprintf(&b, "- Winter %s, spring %s, summer %s, fall %s\n", pct(se.Winter), pct(se.Spring), pct(se.Summer), pct(se.Fall))
	fmt.Fprintf(&b, "- Day %s, night %s\n", pct(dn.Day), pct(dn.Night))

	if len(p.SimilarPerfumes) > 0 {
		b.WriteString("\n## Similar perfumes\n\nMatch score from 0 to 100.\n\n")
		for _, m := range p.SimilarPerfumes {
			s.alternative(&b, m, "")
		}
	}
	if len(p.Dupes) > 0 {
		b.WriteString("\n## Cheaper alternatives\n\nSimilar perfumes of a lower price tier.\n\n")
		for _, m := range p.Dupes {
			extra := "price tier " + web.MarkdownText(m.PriceTier)
			if m.Rating != nil {
				extra += ", rating " + web.Decimal(*m.Rating, 2)
			}
			s.alternative(&b, m.Similar, extra)
		}
	}
	return b.String()
}

// alternative writes one similar perfume of a twin: its link, slug and
// match score, and extra facts.
func (s *Site) alternative(b *strings.Builder, m view.Similar, extra string) {
	fmt.Fprintf(b, "- [%s by %s](%s) (%s): match %s", web.MarkdownText(m.Name), web.MarkdownText(m.Brand),
		s.base+PerfumeMarkdownURL(m.Slug), web.MarkdownCode(m.Slug), web.Decimal(m.MatchScore, 1))
	if extra != "" {
		b.WriteString(", " + extra)
	}
	b.WriteString("\n")
}

// pct writes a share of votes.
func pct(f float64) string { return web.Decimal(f, 1) }

// brandMarkdown writes the twin of a brand page: the brand and its most
// rated perfumes with their slugs.
func (s *Site) brandMarkdown(ix *index.Index, slug string) (string, error) {
	pg := ix.Perfumes(index.ListQuery{Brand: slug, Page: 1, Limit: brandPerfumesInMarkdown})
	if pg.Total == 0 {
		return "", catalog.ErrNotFound
	}
	first := pg.Entries[0]
	canonical := first.BrandSlug()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n> %s perfumes by %s in the Fragrance Data Service, most rated first.\n\n",
		web.MarkdownText(first.Brand()), web.Thousands(pg.Total), web.MarkdownText(first.Brand()))
	fmt.Fprintf(&b, "- Slug: `%s`\n- Web page: %s\n- API: %s/api/perfumes?brand=%s (needs a key)\n",
		canonical, s.base+BrandURL(canonical), s.base, canonical)
	b.WriteString("\n## Perfumes\n\n")
	for _, e := range pg.Entries {
		fmt.Fprintf(&b, "- [%s](%s) (%s)", web.MarkdownText(e.Name()), s.base+PerfumeMarkdownURL(e.Slug()), web.MarkdownCode(e.Slug()))
		var facts []string
		if y := e.Year; y > 0 {
			facts = append(facts, strconv.Itoa(y))
		}
		if r := view.OptFloat(e.Rating); r != nil {
			facts = append(facts, "rating "+web.Decimal(*r, 2))
		}
		if len(facts) > 0 {
			b.WriteString(": " + strings.Join(facts, ", "))
		}
		b.WriteString("\n")
	}
	if pg.Total > len(pg.Entries) {
		fmt.Fprintf(&b, "\n%s more on the web page: %s\n", web.Thousands(pg.Total-len(pg.Entries)), s.base+pagePath(BrandURL(canonical), 2))
	}
	return b.String(), nil
}
