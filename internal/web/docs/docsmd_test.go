package docs_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

// notInTestServer are the links of llms.txt and /docs.md the composed
// test server does not serve: the developer portal (its own area, with
// its stores) and the MCP endpoint (POST only).
var notInTestServer = map[string]bool{"/developer": true, docs.MCPPath: true}

var (
	mdLinkRE  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRE    = regexp.MustCompile("`[^`]*`")
	bareURLRE = regexp.MustCompile(`https://fragrance\.example[^\s)]*`)
)

// getText asks h for path and checks the answer of a text: 200, its
// content type, an ETag that revalidates.
func getText(t *testing.T, h http.Handler, path, ctype string) string {
	t.Helper()
	rec := servetest.Do(t, h, "GET", path)
	if rec.Code != 200 {
		t.Fatalf("GET %s = %d", path, rec.Code)
	}
	if got := rec.Header().Get("Content-Type"); got != ctype {
		t.Errorf("%s: Content-Type %q, want %q", path, got, ctype)
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Errorf("%s: no ETag", path)
	} else if again := servetest.Do(t, h, "GET", path, "If-None-Match", etag); again.Code != http.StatusNotModified {
		t.Errorf("%s with its ETag = %d, want 304", path, again.Code)
	}
	return rec.Body.String()
}

// resolve asks h for every address of the service in links and wants 200.
func resolve(t *testing.T, h http.Handler, from string, links []string) {
	t.Helper()
	for _, l := range links {
		path, ok := strings.CutPrefix(strings.TrimRight(l, ".,:;"), servetest.BaseURL)
		if !ok {
			t.Errorf("%s: link %s is not the service's", from, l)
			continue
		}
		if notInTestServer[path] {
			continue
		}
		if rec := servetest.Do(t, h, "GET", path); rec.Code != 200 {
			t.Errorf("%s: link %s = %d", from, path, rec.Code)
		}
	}
}

// TestLLMsTxt: /llms.txt has the shape of llmstxt.org (an H1 first, a
// summary in a quote, H2 sections of links) and names the key, the docs,
// the OpenAPI document, the MCP endpoint and the Markdown pages; every
// link answers 200.
func TestLLMsTxt(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := getText(t, h, "/llms.txt", "text/plain; charset=utf-8")
	lines := strings.Split(body, "\n")
	if !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !strings.HasPrefix(lines[2], "> ") {
		t.Errorf("llms.txt does not start with an H1 and a quote:\n%s", body)
	}
	var sections []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "### ") {
			t.Errorf("a heading that is not an H2: %q", l)
		}
		if s, ok := strings.CutPrefix(l, "## "); ok {
			sections = append(sections, s)
		}
	}
	if strings.Join(sections, "|") != "Docs|Access|Markdown pages|Optional" {
		t.Errorf("sections %q", sections)
	}
	var links []string
	for _, m := range mdLinkRE.FindAllStringSubmatch(body, -1) {
		links = append(links, m[1])
	}
	for _, want := range []string{"/docs", "/docs.md", "/docs/reference", "/api/openapi.json", "/developer", "/mcp",
		"/perfumes/dior-sauvage.md", "/brands/dior.md"} {
		if !strings.Contains(body, "]("+servetest.BaseURL+want+")") {
			t.Errorf("llms.txt does not link %s", want)
		}
	}
	resolve(t, h, "/llms.txt", links)
}

// TestDocsMarkdown: /docs.md holds the guide (each section of the HTML
// guide) and the reference (every endpoint of the document, the shared
// answers, the conventions), under one H1; its links answer 200; the HTML
// guide and reference link it.
func TestDocsMarkdown(t *testing.T) {
	h := servetest.NewServer(t, nil)
	body := getText(t, h, "/docs.md", "text/markdown; charset=utf-8")
	lines := strings.Split(body, "\n")
	if !strings.HasPrefix(lines[0], "# ") || !strings.HasPrefix(lines[2], "> ") {
		t.Errorf("docs.md does not start with an H1 and a quote")
	}
	var links []string
	inCode := false
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		if strings.HasPrefix(l, "# ") {
			t.Errorf("a second H1: %q", l)
		}
		links = append(links, bareURLRE.FindAllString(codeRE.ReplaceAllString(l, ""), -1)...)
	}
	if inCode {
		t.Error("a code block is not closed")
	}
	for _, want := range []string{"\n## Getting started\n", "\n## API reference\n", "\n### Answers shared by the endpoints\n",
		"\n### Conventions\n", "\n#### Authentication\n", "| Tier | Per minute | Per day |", "X-API-Key"} {
		if !strings.Contains(body, want) {
			t.Errorf("docs.md lacks %q", want)
		}
	}
	doc, err := docs.ParseDoc(api.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.Endpoints {
		if !strings.Contains(body, "\n#### "+e.Method+" "+e.Path+"\n") {
			t.Errorf("docs.md lacks %s %s", e.Method, e.Path)
		}
	}
	// The guide's sections, as the page has them.
	guide := servetest.Do(t, h, "GET", "/docs").Body.String()
	for _, m := range regexp.MustCompile(`<h2 id="[a-z]+">([^<]+)</h2>`).FindAllStringSubmatch(guide, -1) {
		if m[1] != "Next" && !strings.Contains(body, "\n### "+m[1]+"\n") {
			t.Errorf("docs.md lacks the guide's section %q", m[1])
		}
	}
	if len(links) == 0 {
		t.Error("docs.md names no address of the service")
	}
	resolve(t, h, "/docs.md", links)
	for _, page := range []string{"/docs", "/docs/reference"} {
		if !strings.Contains(servetest.Do(t, h, "GET", page).Body.String(), `<link rel="alternate" type="text/markdown" href="/docs.md">`) {
			t.Errorf("%s does not link /docs.md", page)
		}
	}
}

// TestDocsDescribeDiscovery: llms.txt and /docs.md tell a model about
// descriptions and recommendations, and the reference and the playground
// carry the recommend endpoint and match's q.
func TestDocsDescribeDiscovery(t *testing.T) {
	h := servetest.NewServer(t, nil)
	llms := getText(t, h, "/llms.txt", "text/plain; charset=utf-8")
	for _, want := range []string{"/api/perfumes/match?q=", "/api/perfumes/recommend?liked=", "recommend_perfumes", "description in words"} {
		if !strings.Contains(llms, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}
	md := getText(t, h, "/docs.md", "text/markdown; charset=utf-8")
	for _, want := range []string{"/api/perfumes/recommend", "Recommendations from a taste", "liked", "disliked", "vanilla tobacco for winter", "ignored"} {
		if !strings.Contains(md, want) {
			t.Errorf("/docs.md lacks %q", want)
		}
	}
	for _, page := range []string{"/docs/reference", "/developer/playground"} {
		if body := get(t, h, page).Body.String(); !strings.Contains(body, "/api/perfumes/recommend") || !strings.Contains(body, "recommendPerfumes") && page == "/docs/reference" {
			t.Errorf("%s does not carry the recommend endpoint", page)
		}
	}
}
