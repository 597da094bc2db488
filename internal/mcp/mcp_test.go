package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/mcp"
	"github.com/fragrance-data/fragrance/internal/servetest"
	"github.com/fragrance-data/fragrance/internal/view"
)

// config is the server's config over the bundled catalogue.
func config(t testing.TB) mcp.Config {
	t.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Config{Catalogue: servetest.Catalogue(t), View: view.NewBuilder(servetest.BaseURL, nil, ref.Color), Version: "test"}
}

// connect runs s over the in-memory transport and returns a client session.
func connect(t *testing.T, s *mcpsdk.Server) *mcpsdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured output into out; it
// returns the result for its IsError and text.
func call(t *testing.T, cs *mcpsdk.ClientSession, tool string, args map[string]any, out any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	return res
}

// text is a result's text content.
func text(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// exercise lists the tools and calls each one with good and bad input.
func exercise(t *testing.T, cs *mcpsdk.ClientSession) {
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description, input and output schemas wanted", tool.Name)
		}
	}
	slices.Sort(names)
	// Every structured answer is checked against the tool's output schema.
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range lt.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
	}
	call := func(t *testing.T, cs *mcpsdk.ClientSession, tool string, args map[string]any, out any) *mcpsdk.CallToolResult {
		t.Helper()
		res := call(t, cs, tool, args, out)
		if !res.IsError {
			var v any // the answer as plain JSON values
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if err := schemas[tool].Validate(v); err != nil {
				t.Errorf("%s: answer does not meet the output schema: %v", tool, err)
			}
		}
		return res
	}
	want := slices.Clone(mcp.Tools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	var page view.Page
	call(t, cs, "search_perfumes", map[string]any{"query": "sauvage dior", "limit": 3}, &page)
	if len(page.Data) == 0 || page.Data[0].Slug != "dior-sauvage" || page.Limit != 3 {
		t.Errorf("search_perfumes: %+v", page)
	}
	var filtered view.Page
	call(t, cs, "search_perfumes", map[string]any{"gender": []string{"feminine"}, "accords": []string{"citrus", "-sweet"},
		"season": "summer", "year": "2010-", "minRating": 3.5, "sort": "newest", "limit": 5, "page": 2}, &filtered)
	if len(filtered.Data) != 5 || filtered.Page != 2 || filtered.Total <= 10 {
		t.Errorf("search_perfumes filtered: %d items, page %d of %d", len(filtered.Data), filtered.Page, filtered.Total)
	}
	for i, p := range filtered.Data {
		if p.Gender != "feminine" || p.Year == nil || *p.Year < 2010 || (i > 0 && *p.Year > *filtered.Data[i-1].Year) {
			t.Errorf("search_perfumes filtered lists %s (%v, %v)", p.Slug, p.Gender, p.Year)
		}
	}
	var many mcp.PerfumeList
	call(t, cs, "get_perfumes", map[string]any{"slugs": []string{"creed-aventus", "no-such-perfume", "dior-sauvage"}}, &many)
	if len(many.Data) != 2 || many.Data[0].Slug != "creed-aventus" || many.Data[1].Slug != "dior-sauvage" || len(many.Missing) != 1 {
		t.Errorf("get_perfumes: %+v", many)
	}
	var d view.Detail
	call(t, cs, "get_perfume", map[string]any{"slug": "creed-aventus"}, &d)
	if d.Name != "Aventus" || len(d.SimilarPerfumes) != view.SimilarInDetail || len(d.Accords) == 0 {
		t.Errorf("get_perfume: %+v", d)
	}
	var sim view.SimilarList
	call(t, cs, "similar_perfumes", map[string]any{"slug": "creed-aventus", "limit": 4}, &sim)
	if sim.Source.Slug != "creed-aventus" || len(sim.Data) != 4 {
		t.Errorf("similar_perfumes: %+v", sim)
	}
	var dupes view.DupeList
	call(t, cs, "find_dupes", map[string]any{"slug": "creed-aventus"}, &dupes)
	if dupes.Source.Slug != "creed-aventus" || len(dupes.Data) == 0 {
		t.Errorf("find_dupes: %+v", dupes)
	}
	var m view.MatchList
	call(t, cs, "match_perfumes", map[string]any{"accords": []any{map[string]any{"name": "woody", "strength": 40}, map[string]any{"name": "vanilla"}},
		"notes": []string{"Tonka Bean"}, "gender": "masculine", "season": "winter", "time": "night", "limit": 3}, &m)
	if len(m.Data) != 3 || m.Filters.Gender == nil || *m.Filters.Gender != "masculine" {
		t.Errorf("match_perfumes: %+v", m)
	}
	var described view.MatchList
	call(t, cs, "match_perfumes", map[string]any{"description": "vanilla tobacco for winter, no oud, blorp", "limit": 5}, &described)
	if f := described.Filters; len(described.Data) != 5 || f.Season == nil || *f.Season != "winter" || f.DescribedFilters == nil ||
		!slices.Equal(f.Ignored, []string{"blorp"}) || !slices.Equal(f.Excluded, []string{"Agarwood (Oud)"}) {
		t.Errorf("match_perfumes with a description: %+v", described)
	}
	var rec view.RecommendList
	call(t, cs, "recommend_perfumes", map[string]any{"liked": []string{"creed-aventus", "parfums-de-marly-layton"}, "avoid": []string{"oud"}, "limit": 4}, &rec)
	if len(rec.Source) != 2 || len(rec.Data) != 4 || len(rec.Data[0].Reasons) == 0 {
		t.Errorf("recommend_perfumes: %+v", rec)
	}
	var byDior mcp.Resolved
	call(t, cs, "resolve_perfume", map[string]any{"text": "the Sauvage by Dior"}, &byDior)
	if len(byDior.Candidates) == 0 || byDior.Candidates[0].Slug != "dior-sauvage" || byDior.Candidates[0].Score != 1 {
		t.Errorf("resolve_perfume: %+v", byDior)
	}
	var r mcp.Resolved
	call(t, cs, "resolve_perfume", map[string]any{"text": "aventus creed"}, &r)
	if len(r.Candidates) == 0 || r.Candidates[0].Slug != "creed-aventus" || r.Candidates[0].Score != 1 {
		t.Errorf("resolve_perfume: %+v", r)
	}
	var brands view.CountList
	call(t, cs, "list_brands", map[string]any{"query": "hermes"}, &brands)
	if len(brands.Data) != 1 || brands.Data[0].Slug != "hermes" {
		t.Errorf("list_brands: %+v", brands)
	}
	var notes view.LimitedCountList
	call(t, cs, "list_notes", map[string]any{"limit": 5}, &notes)
	if len(notes.Data) != 5 || notes.Total < 5 {
		t.Errorf("list_notes: %+v", notes)
	}
	var accords view.LimitedCountList
	call(t, cs, "list_accords", map[string]any{}, &accords)
	if len(accords.Data) == 0 || accords.Data[0].Color == "" {
		t.Errorf("list_accords: %+v", accords)
	}
	var p view.Perfumer
	call(t, cs, "get_perfumer", map[string]any{"slug": "dominique-ropion", "limit": 2}, &p)
	if p.Slug != "dominique-ropion" || len(p.Perfumes.Data) != 2 {
		t.Errorf("get_perfumer: %+v", p)
	}

	// Bad input: tool errors a model can act on, never protocol errors.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"match_perfumes", map[string]any{"accords": []any{map[string]any{"name": "vanila"}}}, `did you mean "vanilla"`},
		{"match_perfumes", map[string]any{}, "at least one of"},
		{"recommend_perfumes", map[string]any{"liked": []string{}}, "liked"},
		{"recommend_perfumes", map[string]any{"liked": []string{"dior-sauvage", "no-such-perfume"}}, `"no-such-perfume"`},
		{"recommend_perfumes", map[string]any{"liked": []string{"dior-sauvage"}, "avoid": []string{"vanillla"}}, "did you mean"},
		{"match_perfumes", map[string]any{"description": strings.Repeat("a", 201)}, "at most 200"},
		{"match_perfumes", map[string]any{"notes": []string{"Rose"}, "sort": "cheapest"}, "sort"},
		{"match_perfumes", map[string]any{"notes": []string{"Rose"}, "exclude": []string{"vanillla"}}, "did you mean"},
		{"match_perfumes", map[string]any{"gender": "other"}, "use masculine, feminine, unisex"},
		{"match_perfumes", map[string]any{"accords": []any{map[string]any{"name": "woody", "strength": 101}}}, "from 0 to 100"},
		{"get_perfume", map[string]any{"slug": "no-such-perfume"}, "resolve_perfume"},
		{"get_perfumer", map[string]any{"slug": "no-such-perfumer"}, "no perfumer"},
		{"similar_perfumes", map[string]any{"slug": "creed-aventus", "limit": -1}, "limit"},
		{"search_perfumes", map[string]any{"query": strings.Repeat("a", 201)}, "at most 200"},
		{"search_perfumes", map[string]any{"accords": []string{"wodoy"}, "sort": "ratng"}, `did you mean "woody"`},
		{"search_perfumes", map[string]any{"year": "20x5"}, "year: must be a year"},
		{"get_perfumes", map[string]any{"slugs": []string{}}, "at least one"},
		{"get_perfume", map[string]any{}, "slug"},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: error %v %q, want one saying %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
}

func TestInMemory(t *testing.T) {
	cs := connect(t, mcp.New(config(t)))
	exercise(t, cs)
}

func TestResourceAndPrompt(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	cs := connect(t, mcp.New(cfg))
	rt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(rt.ResourceTemplates) != 1 || rt.ResourceTemplates[0].URITemplate != "perfume://{slug}" {
		t.Fatalf("templates %+v, %v", rt, err)
	}
	res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "perfume://creed-aventus"})
	if err != nil {
		t.Fatal(err)
	}
	if md := res.Contents[0].Text; !strings.HasPrefix(md, "# Aventus by Creed") || !strings.Contains(md, "## Accords") || res.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("resource:\n%s", md)
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "perfume://no-such-perfume"}); err == nil {
		t.Error("an unknown perfume's resource was read")
	}
	// The Markdown of the config wins.
	cfg.PerfumeMarkdown = func(slug string) (string, bool) { return "# from the page " + slug, slug == "creed-aventus" }
	cs = connect(t, mcp.New(cfg))
	if res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "perfume://creed-aventus"}); err != nil || res.Contents[0].Text != "# from the page creed-aventus" {
		t.Errorf("PerfumeMarkdown: %+v %v", res, err)
	}

	pr, err := cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: mcp.PromptCheaper, Arguments: map[string]string{"perfume": "Creed Aventus"}})
	if err != nil || len(pr.Messages) != 1 || !strings.Contains(pr.Messages[0].Content.(*mcpsdk.TextContent).Text, "find_dupes") {
		t.Errorf("prompt: %+v %v", pr, err)
	}
}
