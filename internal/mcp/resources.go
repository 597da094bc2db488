package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/view"
)

// ResourcePrefix starts the URI of a perfume's resource: perfume://{slug}.
const ResourcePrefix = "perfume://"

// PromptCheaper is the name of the prompt that recommends a cheaper
// alternative.
const PromptCheaper = "cheaper_alternative"

// addResources adds the resource template perfume://{slug}.
func addResources(s *mcpsdk.Server, t *tools) {
	s.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		URITemplate: ResourcePrefix + "{slug}",
		Name:        "perfume",
		Title:       "A perfume as Markdown",
		Description: "One perfume as compact Markdown: accords with strengths, the note pyramid, seasons, ratings and similar perfumes with their slugs.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		uri := req.Params.URI
		slug, ok := strings.CutPrefix(uri, ResourcePrefix)
		if !ok || slug == "" {
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		md, ok, err := t.markdown(slug)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: md}}}, nil
	})
}

// markdown is the perfume of slug as Markdown: Config.PerfumeMarkdown's
// text, or a short one written from the view.
func (t *tools) markdown(slug string) (string, bool, error) {
	if t.cfg.PerfumeMarkdown != nil {
		md, ok := t.cfg.PerfumeMarkdown(slug)
		return md, ok, nil
	}
	ix, err := t.index()
	if err != nil {
		return "", false, err
	}
	e, similar, err := ix.Similar(slug, view.SimilarInDetail)
	if err != nil {
		return "", false, nil
	}
	return shortMarkdown(t.cfg.View.Detail(e, similar)), true, nil
}

// shortMarkdown writes a perfume's essentials as Markdown.
func shortMarkdown(d view.Detail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s by %s\n\n", d.Name, d.Brand)
	fmt.Fprintf(&b, "- slug: %s\n- gender: %s\n", d.Slug, d.Gender)
	if d.Year != nil {
		fmt.Fprintf(&b, "- year: %d\n", *d.Year)
	}
	if d.Rating != nil {
		fmt.Fprintf(&b, "- rating: %s/5 (%d ratings)\n", strconv.FormatFloat(*d.Rating, 'f', -1, 64), d.RatingCount)
	}
	if d.PriceTier != nil {
		fmt.Fprintf(&b, "- price tier: %s\n", *d.PriceTier)
	}
	if len(d.Accords) > 0 {
		b.WriteString("\n## Accords\n\n")
		for _, a := range d.Accords {
			fmt.Fprintf(&b, "- %s: %s\n", a.Name, strconv.FormatFloat(a.Strength, 'f', -1, 64))
		}
	}
	layers := []struct {
		name  string
		notes []view.Note
	}{{"Top", d.Notes.Top}, {"Middle", d.Notes.Middle}, {"Base", d.Notes.Base}, {"Unplaced", d.Notes.Unplaced}}
	wrote := false
	for _, l := range layers {
		if len(l.notes) == 0 {
			continue
		}
		if !wrote {
			b.WriteString("\n## Notes\n\n")
			wrote = true
		}
		names := make([]string, len(l.notes))
		for i, n := range l.notes {
			names[i] = n.Name
		}
		fmt.Fprintf(&b, "- %s: %s\n", l.name, strings.Join(names, ", "))
	}
	if len(d.SimilarPerfumes) > 0 {
		b.WriteString("\n## Similar\n\n")
		for _, s := range d.SimilarPerfumes {
			fmt.Fprintf(&b, "- %s by %s (%s), match %s\n", s.Name, s.Brand, s.Slug, strconv.FormatFloat(s.MatchScore, 'f', -1, 64))
		}
	}
	return b.String()
}

// addPrompts adds the prompt that shows a model how to recommend.
func addPrompts(s *mcpsdk.Server) {
	s.AddPrompt(&mcpsdk.Prompt{
		Name:        PromptCheaper,
		Title:       "Something like X but cheaper",
		Description: "Recommend cheaper alternatives to a perfume the user names.",
		Arguments: []*mcpsdk.PromptArgument{
			{Name: "perfume", Description: "the perfume as the user names it, e.g. 'Creed Aventus'", Required: true},
			{Name: "notes", Description: "optional: what the user wants to keep or avoid, e.g. 'less smoky'"},
		},
	}, func(_ context.Context, req *mcpsdk.GetPromptRequest) (*mcpsdk.GetPromptResult, error) {
		p := strings.TrimSpace(req.Params.Arguments["perfume"])
		if p == "" {
			return nil, fmt.Errorf("the argument perfume is required")
		}
		text := "The user wants something like " + strconv.Quote(p) + " but cheaper.\n" +
			"1. Call resolve_perfume with that name; if the best score is low, ask which perfume they mean.\n" +
			"2. Call find_dupes with the slug; if it finds nothing, call similar_perfumes and keep those of a lower price tier.\n" +
			"3. For the two or three best, call get_perfume to compare accords and notes with the original.\n" +
			"4. Answer with each alternative's name, brand, price tier, match score and what it shares with the original, best first."
		if n := strings.TrimSpace(req.Params.Arguments["notes"]); n != "" {
			text += "\nKeep in mind what the user said: " + strconv.Quote(n) + "."
		}
		return &mcpsdk.GetPromptResult{
			Description: "Cheaper alternatives to " + p,
			Messages:    []*mcpsdk.PromptMessage{{Role: "user", Content: &mcpsdk.TextContent{Text: text}}},
		}, nil
	})
}
