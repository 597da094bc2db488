package docs

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"text/template"

	"github.com/fragrance-data/fragrance/internal/web"
)

// The Markdown docs: /docs.md, the guide and the reference in one text
// for a language model, written from the same sources as the pages (the
// guide's words, the tiers in force and the OpenAPI document), and
// /llms.txt, the index of what a model may read (llmstxt.org).
const (
	docsMarkdownPath = "/docs.md"
	llmsPath         = "/llms.txt"
	openAPIPath      = "/api/openapi.json"
	// MCPPath is the Model Context Protocol endpoint llms.txt names.
	MCPPath = "/mcp"
)

// guideMarkdown is the getting-started guide in Markdown.
var guideMarkdown = template.Must(template.New("guide.md").Funcs(template.FuncMap{
	"num64": func(n int64) string { return web.Thousands(int(n)) },
}).ParseFS(templateFS, "templates/guide.md"))

// docsMarkdown is the text of /docs.md: the guide, then the reference.
func (d *Docs) docsMarkdown() (string, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: developer docs\n\n> %s Version %s. Written from the service's OpenAPI document, %s.\n\n",
		d.doc.Title, d.doc.Summary, d.doc.Version, d.base+openAPIPath)
	g := guideData{Tiers: d.tierRows(), Doc: d.doc, KeyEnv: KeyEnv,
		First: State{Endpoint: d.doc.Endpoint("listPerfumes"), Values: map[string][]string{"q": {"sauvage dior"}, "limit": {"1"}}}}
	if err := guideMarkdown.Execute(&b, struct {
		Base string
		G    guideData
	}{d.base, g}); err != nil {
		return "", err
	}
	d.referenceMarkdown(&b)
	return b.String(), nil
}

// referenceMarkdown writes the reference: every endpoint by tag, the
// shared answers and the document's conventions.
func (d *Docs) referenceMarkdown(b *bytes.Buffer) {
	fmt.Fprintf(b, "\n## API reference\n\nPaths are under `%s`; every `/api` endpoint but those marked \"no key\" needs a key.\n", d.base)
	for _, t := range d.doc.Tags {
		fmt.Fprintf(b, "\n### %s\n", t.Name)
		if t.Description != "" {
			fmt.Fprintf(b, "\n%s\n", t.Description)
		}
		for _, e := range t.Endpoints {
			fmt.Fprintf(b, "\n#### %s %s\n\n%s", e.Method, e.Path, e.Summary)
			if e.Keyless {
				b.WriteString(" (no key)")
			}
			b.WriteString("\n")
			if e.DescriptionMarkdown != "" {
				fmt.Fprintf(b, "\n%s\n", shiftHeadings(e.DescriptionMarkdown, 4))
			}
			if len(e.Params) > 0 {
				b.WriteString("\nParameters:\n\n")
				for _, p := range e.Params {
					fmt.Fprintf(b, "- `%s` (in %s)", p.Name, p.In)
					if h := p.Hint(); h != "" {
						fmt.Fprintf(b, ", %s", lowerFirst(h))
					}
					if p.DescriptionMarkdown != "" {
						fmt.Fprintf(b, ": %s", oneLine(p.DescriptionMarkdown))
					}
					if p.Example != "" {
						fmt.Fprintf(b, " Example: `%s`.", p.Example)
					}
					b.WriteString("\n")
				}
			}
			st := State{Endpoint: e, Values: exampleValues(e)}
			fmt.Fprintf(b, "\nExample request:\n\n```sh\n%s\n```\n\nAnswers:\n\n", st.Snippets(d.base, d.imageBase)[0].Code)
			for _, a := range e.Answers {
				fmt.Fprintf(b, "- %s", a.Status)
				if a.Ref != "" {
					fmt.Fprintf(b, ": %s (shared answer).", a.Ref)
				} else {
					if a.ContentType != "" {
						fmt.Fprintf(b, " (`%s`)", a.ContentType)
					}
					if a.DescriptionMarkdown != "" {
						fmt.Fprintf(b, ": %s", oneLine(a.DescriptionMarkdown))
					}
				}
				if len(a.Codes) > 0 {
					fmt.Fprintf(b, " Codes: `%s`.", strings.Join(a.Codes, "`, `"))
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\n### Answers shared by the endpoints\n")
	for _, a := range d.doc.Shared {
		fmt.Fprintf(b, "\n#### %s\n\n%s\n", a.Status, shiftHeadings(a.DescriptionMarkdown, 4))
		if len(a.Codes) > 0 {
			fmt.Fprintf(b, "\nCodes: `%s`.\n", strings.Join(a.Codes, "`, `"))
		}
	}
	fmt.Fprintf(b, "\n### Conventions\n\n%s\n", shiftHeadings(d.doc.IntroMarkdown, 3))
}

// shiftHeadings makes the headings of src, Markdown written for a page of
// its own, headings below level: a "# x" becomes level+1, "## x" level+2,
// and so on, at most six.
func shiftHeadings(src string, level int) string {
	lines := strings.Split(src, "\n")
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "#"))
		// The document's own headings start at "##"; its shallowest
		// level lands just under level.
		to := min(6, level+max(1, n-1))
		lines[i] = strings.Repeat("#", to) + l[n:]
	}
	return strings.Join(lines, "\n")
}

// oneLine joins the lines of a short description into one.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// lowerFirst lowers the first letter of an ASCII hint.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// docsMarkdownPage is GET /docs.md.
func (d *Docs) docsMarkdownPage(w http.ResponseWriter, r *http.Request) {
	md, err := d.docsMarkdown()
	if err != nil {
		d.web.ServerError(w, r, err)
		return
	}
	d.web.Text(w, r, http.StatusOK, web.MarkdownType, md)
}

// llms is GET /llms.txt: what the service is and the addresses a language
// model reads it by, in the format of llmstxt.org (a title, a summary in
// a quote, sections of links).
func (d *Docs) llms(w http.ResponseWriter, r *http.Request) {
	d.web.Text(w, r, http.StatusOK, "text/plain; charset=utf-8", d.llmsText())
}

// llmsText is the text of /llms.txt.
func (d *Docs) llmsText() string {
	u := func(path string) string { return d.base + path }
	var b strings.Builder
	fmt.Fprintf(&b, "# Fragrance Data Service\n\n> %s Search perfumes; read their accords with strengths, note pyramids, seasons and ratings; find similar perfumes and cheaper alternatives; match perfumes to a profile of accords and notes, or to a description in words (`/api/perfumes/match?q=vanilla tobacco for winter`: the answer says what was understood and which words were not); recommend perfumes from those a person likes and dislikes, with the reasons (`/api/perfumes/recommend?liked=slug,slug`). A website shows the same catalogue.\n\n",
		d.doc.Summary)
	b.WriteString("The API needs a free key, made in the developer portal after signing in by email. The Markdown pages and this file need none. Slugs (such as `dior-sauvage`) name perfumes and brands everywhere.\n\n")
	b.WriteString("## Docs\n\n")
	fmt.Fprintf(&b, "- [Developer docs in Markdown](%s): the getting-started guide and the whole API reference in one text\n", u(docsMarkdownPath))
	fmt.Fprintf(&b, "- [Getting started](%s): the guide as a web page\n", u(guidePath))
	fmt.Fprintf(&b, "- [API reference](%s): every endpoint, parameter and answer, as a web page\n", u(referencePath))
	fmt.Fprintf(&b, "- [OpenAPI document](%s): the API's OpenAPI description, no key needed\n", u(openAPIPath))
	b.WriteString("\n## Access\n\n")
	fmt.Fprintf(&b, "- [Developer portal](%s): sign in with an email address and create an API key (free)\n", u(portalPath))
	fmt.Fprintf(&b, "- [Pricing](%s): the tiers and their rate limits\n", u(pricingPath))
	fmt.Fprintf(&b, "- [MCP endpoint](%s): the Model Context Protocol server (streamable HTTP, POST, with the API key as `Authorization: Bearer <key>`): tools to search, read, compare and match perfumes (match_perfumes takes a description in words), and to recommend perfumes for a taste (recommend_perfumes)\n", u(MCPPath))
	fmt.Fprintf(&b, "- [Browsing](%s): `GET /api/perfumes` filters by gender, accords and notes (a leading `-` excludes), season, time, year and rating, sorts (popular, rating, newest, oldest, name), counts facets, and looks up to 100 perfumes by slug at once (`ids`); the MCP tools `search_perfumes` (the same filters and sorts) and `get_perfumes` (several slugs)\n", u(docsMarkdownPath))
	b.WriteString("\n## Markdown pages\n\n")
	b.WriteString("Every perfume and brand page has a Markdown twin: add `.md` to its address, `/perfumes/{slug}.md` and `/brands/{slug}.md`.\n\n")
	if slug := d.exampleSlug("getPerfume"); slug != "" {
		fmt.Fprintf(&b, "- [A perfume in Markdown](%s): accords with strengths, the note pyramid, seasons, ratings, similar perfumes and cheaper alternatives with their slugs\n", u("/perfumes/"+slug+".md"))
	}
	if slug := d.exampleBrand(); slug != "" {
		fmt.Fprintf(&b, "- [A brand in Markdown](%s): the brand's perfumes, most rated first, with their slugs\n", u("/brands/"+slug+".md"))
	}
	b.WriteString("\n## Optional\n\n")
	fmt.Fprintf(&b, "- [Error reference](%s): every problem code, its status and when it is answered\n", u("/docs/errors"))
	fmt.Fprintf(&b, "- [Changelog](%s): changes of the API\n", u("/changelog"))
	fmt.Fprintf(&b, "- [Sitemap](%s): every page of the website\n", u("/sitemap.xml"))
	return b.String()
}

// exampleSlug is the example of the path parameter slug of endpoint id
// in the document ("" when it has none).
func (d *Docs) exampleSlug(id string) string {
	e := d.doc.Endpoint(id)
	if e == nil {
		return ""
	}
	if p := e.param("slug", "path"); p != nil {
		return p.Example
	}
	return ""
}

// exampleBrand is the brand of listPerfumes' example in the document
// ("" when it has none).
func (d *Docs) exampleBrand() string {
	e := d.doc.Endpoint("listPerfumes")
	if e == nil {
		return ""
	}
	if p := e.param("brand", "query"); p != nil {
		return p.Example
	}
	return ""
}
