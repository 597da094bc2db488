package mcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/describe"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// tools holds the tool handlers.
type tools struct{ cfg Config }

// Tool names, as clients call them and as usage meters them (mcp.<name>).
const (
	ToolSearch      = "search_perfumes"
	ToolGet         = "get_perfume"
	ToolSimilar     = "similar_perfumes"
	ToolDupes       = "find_dupes"
	ToolMatch       = "match_perfumes"
	ToolResolve     = "resolve_perfume"
	ToolBrands      = "list_brands"
	ToolNotes       = "list_notes"
	ToolAccords     = "list_accords"
	ToolGetPerfumer = "get_perfumer"
	ToolGetMany     = "get_perfumes"
	ToolRecommend   = "recommend_perfumes"
)

// Tools lists the names of every tool the server offers.
var Tools = []string{ToolSearch, ToolGet, ToolSimilar, ToolDupes, ToolMatch, ToolResolve, ToolBrands, ToolNotes, ToolAccords, ToolGetPerfumer, ToolGetMany, ToolRecommend}

// SearchInput is search_perfumes' input.
type SearchInput struct {
	Query string `json:"query,omitempty" jsonschema:"words of a perfume's name and/or brand, e.g. 'sauvage dior' (typos are tolerated); empty lists the most rated perfumes"`
	Brand string `json:"brand,omitempty" jsonschema:"optional brand slug or name to stay within, e.g. 'chanel'"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many perfumes to return, 1 to 100 (default 20)"`
	// The list's filters and sort, as GET /api/perfumes takes them.
	Gender    []string `json:"gender,omitempty" jsonschema:"only perfumes of these genders: masculine, feminine, unisex"`
	Accords   []string `json:"accords,omitempty" jsonschema:"accords every perfume must have, as list_accords spells them; a leading '-' excludes one, e.g. ['woody','-sweet']"`
	Notes     []string `json:"notes,omitempty" jsonschema:"notes every perfume must have, as list_notes spells them; a leading '-' excludes one, e.g. ['rose','-vanilla']"`
	Season    string   `json:"season,omitempty" jsonschema:"only perfumes most voted for this season: winter, spring, summer or fall"`
	Time      string   `json:"time,omitempty" jsonschema:"only perfumes most voted for this time: day or night"`
	Year      string   `json:"year,omitempty" jsonschema:"launch year: 2015, or a range 2010-2020, 2015- or -1990"`
	MinRating float64  `json:"minRating,omitempty" jsonschema:"only perfumes rated at least this, 0 to 5"`
	Sort      string   `json:"sort,omitempty" jsonschema:"popular (most rated, the default without query), rating, newest, oldest or name; with a query the default is relevance"`
	Page      int      `json:"page,omitempty" jsonschema:"which page of limit perfumes, from 1 (default 1)"`
}

// SlugInput is the input of get_perfume.
type SlugInput struct {
	Slug string `json:"slug" jsonschema:"the perfume's slug, e.g. 'creed-aventus' (from resolve_perfume or search_perfumes)"`
}

// SlugLimitInput is the input of similar_perfumes and find_dupes.
type SlugLimitInput struct {
	Slug  string `json:"slug" jsonschema:"the perfume's slug, e.g. 'creed-aventus' (from resolve_perfume or search_perfumes)"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many perfumes to return (default 10 for similar, 20 for dupes; at most 20 and 50)"`
}

// AccordWant is one accord of match_perfumes with the strength wanted.
type AccordWant struct {
	Name     string   `json:"name" jsonschema:"an accord name as list_accords spells it, e.g. 'vanilla', 'woody', 'citrus'"`
	Strength *float64 `json:"strength,omitempty" jsonschema:"how strong, 0 to 100 (default 100)"`
}

// MatchInput is match_perfumes' input: at least one field besides limit.
type MatchInput struct {
	Description string       `json:"description,omitempty" jsonschema:"the perfume wanted, in words, e.g. 'vanilla tobacco for winter', 'fresh citrus for the office for men', 'something smoky but not oud': accords, notes, words for scents (boozy, clean, beachy...), gender, season, time of day, a brand and negations are understood; combined with the other fields, which win where both say the same thing; filters.ignored lists the words not understood"`
	Accords     []AccordWant `json:"accords,omitempty" jsonschema:"accords wanted, up to 20, each with a strength"`
	Notes       []string     `json:"notes,omitempty" jsonschema:"notes wanted as list_notes spells them, e.g. 'bergamot', up to 20"`
	Gender      string       `json:"gender,omitempty" jsonschema:"only perfumes of this gender: masculine, feminine or unisex"`
	Season      string       `json:"season,omitempty" jsonschema:"only perfumes suited to this season: winter, spring, summer or fall"`
	Time        string       `json:"time,omitempty" jsonschema:"only perfumes suited to this time of day: day or night"`
	Limit       int          `json:"limit,omitempty" jsonschema:"how many perfumes to return, 1 to 50 (default 20)"`
	Sort        string       `json:"sort,omitempty" jsonschema:"'popular': perfumes meeting the most wishes first, well-known and well-rated ones leading (a description always ranks so); empty: by matchScore"`
	Exclude     []string     `json:"exclude,omitempty" jsonschema:"accord or note names no result may have, e.g. 'oud', 'sweet'"`
}

// RecommendInput is recommend_perfumes' input.
type RecommendInput struct {
	Liked    []string `json:"liked" jsonschema:"slugs of 1 to 10 perfumes the person likes (from resolve_perfume), e.g. ['creed-aventus', 'parfums-de-marly-layton']"`
	Disliked []string `json:"disliked,omitempty" jsonschema:"slugs of up to 10 perfumes the person dislikes: recommendations move away from them"`
	Avoid    []string `json:"avoid,omitempty" jsonschema:"accord or note names no recommendation may have, e.g. 'oud'"`
	Gender   string   `json:"gender,omitempty" jsonschema:"only perfumes of this gender or unisex: masculine, feminine or unisex"`
	Limit    int      `json:"limit,omitempty" jsonschema:"how many perfumes to return, 1 to 50 (default 10)"`
}

// ResolveInput is resolve_perfume's input.
type ResolveInput struct {
	Text  string `json:"text" jsonschema:"a perfume as a person names it, e.g. 'aventus creed' or 'bleu de chanel'; brand and name words in any order"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many candidates, 1 to 20 (default 5)"`
}

// Candidate is a perfume resolve_perfume found, best first.
type Candidate struct {
	Slug  string  `json:"slug" jsonschema:"the slug the other tools take"`
	Name  string  `json:"name"`
	Brand string  `json:"brand"`
	Score float64 `json:"score" jsonschema:"0 to 1: the share of the text's words found in the brand and name (1: all of them)"`
}

// Resolved is resolve_perfume's output.
type Resolved struct {
	Candidates []Candidate `json:"candidates" jsonschema:"the best matches, best first; empty when nothing matched"`
}

// BrandsInput is list_brands' input.
type BrandsInput struct {
	Query string `json:"query,omitempty" jsonschema:"optional words of a brand's name, e.g. 'maison'; empty lists every brand"`
}

// LimitInput is the input of list_notes.
type LimitInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"how many notes, the most used first (default 100)"`
}

// AccordsInput is list_accords' input.
type AccordsInput struct {
	Search string `json:"search,omitempty" jsonschema:"optional words of an accord's name"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many accords, the most used first, 1 to 100 (default 50)"`
}

// PerfumerInput is get_perfumer's input.
type PerfumerInput struct {
	Slug  string `json:"slug" jsonschema:"the perfumer's slug, e.g. 'alberto-morillas' (from get_perfume's perfumers)"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many of their perfumes, most rated first, 1 to 100 (default 20)"`
}

// notesDefault is how many notes list_notes returns by default: all of
// them would flood a model's context.
const notesDefault = 100

// resolveLimit bounds resolve_perfume's candidates.
var resolveLimit = view.Limit{Default: 5, Max: 20}

// limit applies a view.Limit to a tool's limit argument (0: the default;
// negative: an error, as the API refuses it).
func limit(n int, l view.Limit) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("limit: must be a positive number (at most %d)", l.Max)
	case n == 0:
		return l.Default, nil
	}
	return l.Clamp(n), nil
}

// text checks a free-text argument as the API does.
func text(name, s string) (string, error) {
	s = strings.TrimSpace(s)
	if view.TextTooLong(s) {
		return "", fmt.Errorf("%s: at most %d characters", name, view.MaxTextLen)
	}
	return s, nil
}

// add registers one typed tool whose calls go through the Gate.
func add[In, Out any](s *mcpsdk.Server, t *tools, name, title, desc string, run func(ix *index.Index, in In) (Out, error)) {
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: name, Title: title, Description: desc,
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest, in In) (*mcpsdk.CallToolResult, Out, error) {
			var out Out
			call := func() error {
				ix, err := t.index()
				if err != nil {
					return err
				}
				out, err = run(ix, in)
				return err
			}
			var err error
			if t.cfg.Gate != nil {
				err = t.cfg.Gate(ctx, name, call)
			} else {
				err = call()
			}
			return nil, out, err
		})
}

// register adds every tool to s.
func (t *tools) register(s *mcpsdk.Server) {
	u := t.cfg.View
	add(s, t, ToolSearch, "Search perfumes",
		"Search the catalogue by perfume name and/or brand words; returns a page of perfumes (slug, name, brand, year, "+
			"rating, gender, price tier, main accords), best match first. Use it to browse or when a name is ambiguous; "+
			"for one perfume you can name, resolve_perfume is shorter. Filters (gender, accords, notes, season, time, year, "+
			"minRating) narrow the list and sort orders it, as GET /api/perfumes does.",
		func(ix *index.Index, in SearchInput) (view.Page, error) { return searchPerfumes(ix, u, in) })
	add(s, t, ToolGet, "Get a perfume",
		"Everything about one perfume by slug: description, accords with strengths (0-100), the note pyramid (top, "+
			"middle, base), seasons and day/night scores, longevity, sillage, rating, price tier, perfumers and the 5 most similar perfumes.",
		func(ix *index.Index, in SlugInput) (view.Detail, error) {
			e, similar, err := ix.Similar(in.Slug, view.SimilarInDetail)
			if err != nil {
				return view.Detail{}, explain(err, "perfume", in.Slug)
			}
			return u.Detail(e, similar), nil
		})
	add(s, t, ToolSimilar, "Similar perfumes",
		"Perfumes that smell like the given one, most similar first, with a matchScore (0-100) and the accords and notes they share. "+
			"Use it for \"something like X\".",
		func(ix *index.Index, in SlugLimitInput) (view.SimilarList, error) {
			n, err := limit(in.Limit, view.SimilarLimit)
			if err != nil {
				return view.SimilarList{}, err
			}
			e, items, err := ix.Similar(in.Slug, n)
			if err != nil {
				return view.SimilarList{}, explain(err, "perfume", in.Slug)
			}
			return u.SimilarList(e, items, n), nil
		})
	add(s, t, ToolDupes, "Cheaper alternatives",
		"Cheaper alternatives (\"dupes\") of the given perfume: similar perfumes of a lower price tier, with their "+
			"matchScore, price tier and rating. Use it for \"like X but cheaper\".",
		func(ix *index.Index, in SlugLimitInput) (view.DupeList, error) {
			n, err := limit(in.Limit, view.DupesLimit)
			if err != nil {
				return view.DupeList{}, err
			}
			e, items, err := ix.Dupes(in.Slug, n)
			if err != nil {
				return view.DupeList{}, explain(err, "perfume", in.Slug)
			}
			return u.DupeList(e, items, n), nil
		})
	add(s, t, ToolMatch, "Match a scent profile or a description",
		"Perfumes that fit a description in words (\"vanilla tobacco for winter\", \"clean soapy scent for her, no musk\") and/or a "+
			"profile: accords wanted (with strengths), notes, exclusions, and optional hard filters gender, season and time of day. "+
			"Give at least one of them. A description ranks perfumes meeting all it asks first, well-known ones leading; "+
			"filters echoes what it understood and filters.ignored what it did not. Names are checked against list_accords "+
			"and list_notes; an unknown name comes back as an error with suggestions.",
		func(ix *index.Index, in MatchInput) (view.MatchList, error) { return matchProfile(ix, u, in) })
	add(s, t, ToolResolve, "Resolve a perfume name",
		"Turn a perfume as a person names it (\"aventus creed\", \"the Sauvage by Dior\") into the best catalogue slugs with a "+
			"score; call it before the tools that take a slug when you only have a name. A low score means a weak match: ask or search instead.",
		func(ix *index.Index, in ResolveInput) (Resolved, error) { return resolve(ix, in) })
	add(s, t, ToolRecommend, "Recommend perfumes for a taste",
		"Perfumes for someone who likes the given perfumes (and dislikes others): close to what the liked ones share, away from "+
			"the disliked ones, never one of them, never one with an avoided accord or note, a mix of brands, well-known ones "+
			"leading among near-equals. Each result says what it shares with which liked perfume (reasons). Take slugs from "+
			"resolve_perfume; an unknown slug comes back as an error naming it.",
		func(ix *index.Index, in RecommendInput) (view.RecommendList, error) { return recommend(ix, u, in) })
	add(s, t, ToolBrands, "List brands",
		"Brands with their slug and number of perfumes, optionally filtered by words of their name.",
		func(ix *index.Index, in BrandsInput) (view.CountList, error) {
			q, err := text("query", in.Query)
			if err != nil {
				return view.CountList{}, err
			}
			bs := ix.Brands(q)
			return view.CountList{Data: view.Counts(bs), Total: len(bs)}, nil
		})
	add(s, t, ToolNotes, "List notes",
		"Notes (ingredients such as bergamot, vanilla, oud) with their number of perfumes, the most used first: the names match_perfumes accepts.",
		func(ix *index.Index, in LimitInput) (view.LimitedCountList, error) {
			n, err := limit(in.Limit, view.Limit{Default: notesDefault, Max: view.NotesLimit.Max})
			if err != nil {
				return view.LimitedCountList{}, err
			}
			items, total := ix.Notes(n)
			return view.LimitedCountList{Data: view.Counts(items), Total: total, Limit: &n}, nil
		})
	add(s, t, ToolAccords, "List accords",
		"Accords (scent families such as woody, citrus, vanilla) with their number of perfumes and colour, the most used first: "+
			"the names match_perfumes accepts.",
		func(ix *index.Index, in AccordsInput) (view.LimitedCountList, error) {
			q, err := text("search", in.Search)
			if err != nil {
				return view.LimitedCountList{}, err
			}
			n, err := limit(in.Limit, view.AccordsLimit)
			if err != nil {
				return view.LimitedCountList{}, err
			}
			items, total := ix.Accords(q, n)
			return view.LimitedCountList{Data: view.Counts(items), Total: total, Limit: &n}, nil
		})
	add(s, t, ToolGetMany, "Get several perfumes",
		"Several perfumes at once by slug (up to 100), in the order asked, as search_perfumes lists them; slugs not found are in missing. "+
			"Use it for a list of perfumes you already have slugs of, instead of one get_perfume call each.",
		func(ix *index.Index, in GetPerfumesInput) (PerfumeList, error) { return getPerfumes(ix, u, in) })
	add(s, t, ToolGetPerfumer, "Get a perfumer",
		"A perfumer (nose) by slug with their number of perfumes and their most rated perfumes.",
		func(ix *index.Index, in PerfumerInput) (view.Perfumer, error) {
			n, err := limit(in.Limit, view.PerfumerLimit)
			if err != nil {
				return view.Perfumer{}, err
			}
			c, pg, err := ix.Perfumer(in.Slug, 1, n)
			if err != nil {
				return view.Perfumer{}, explain(err, "perfumer", in.Slug)
			}
			return u.Perfumer(c, pg), nil
		})
}

// matchProfile checks a match_perfumes input with the API's rules and runs
// the match.
func matchProfile(ix *index.Index, u view.Builder, in MatchInput) (view.MatchList, error) {
	var errs []string
	q := index.MatchQuery{Notes: in.Notes, Page: 1}
	if len(in.Accords) > view.MaxListItems {
		errs = append(errs, fmt.Sprintf("accords: at most %d", view.MaxListItems))
	}
	if len(in.Notes) > view.MaxListItems {
		errs = append(errs, fmt.Sprintf("notes: at most %d", view.MaxListItems))
	}
	for _, a := range in.Accords {
		w := index.AccordWant{Name: strings.TrimSpace(a.Name), Strength: 100}
		if a.Strength != nil {
			w.Strength = *a.Strength
		}
		switch {
		case w.Name == "":
			errs = append(errs, "accords: an accord name is empty")
		case w.Strength < 0 || w.Strength > 100 || math.IsNaN(w.Strength):
			errs = append(errs, fmt.Sprintf("accords: strength of %q must be a number from 0 to 100", w.Name))
		}
		q.Accords = append(q.Accords, w)
	}
	for _, f := range []struct {
		name, v string
		allowed []string
		dst     *string
	}{{"gender", in.Gender, view.Genders, (*string)(&q.Gender)}, {"season", in.Season, view.Seasons, &q.Season}, {"time", in.Time, view.Times, &q.Time}} {
		if f.v == "" {
			continue
		}
		c, ok := view.Canonical(strings.TrimSpace(f.v), f.allowed)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: unknown %s %q; use %s", f.name, f.name, f.v, strings.Join(f.allowed, ", ")))
		}
		*f.dst = c
	}
	n, err := limit(in.Limit, view.MatchLimit)
	if err != nil {
		errs = append(errs, err.Error())
	}
	q.Limit = n
	desc, err := text("description", in.Description)
	if err != nil {
		errs = append(errs, err.Error())
	}
	switch s := strings.TrimSpace(in.Sort); {
	case s == "":
	case slices.Contains(view.MatchSorts, s):
		q.Sort = s
	default:
		errs = append(errs, fmt.Sprintf("sort: use %s or leave it empty", strings.Join(view.MatchSorts, ", ")))
	}
	if len(in.Exclude) > view.MaxListItems {
		errs = append(errs, fmt.Sprintf("exclude: at most %d", view.MaxListItems))
	}
	for _, x := range in.Exclude {
		x = strings.TrimSpace(x)
		name, isAccord := ix.CanonicalAccord(x)
		switch {
		case x == "":
			errs = append(errs, "exclude: a name is empty")
		case isAccord:
			q.Exclude.Accords = append(q.Exclude.Accords, name)
		default: // a note, or unknown: the match names it with suggestions
			q.Exclude.Notes = append(q.Exclude.Notes, x)
		}
	}
	if desc == "" && len(q.Accords) == 0 && len(q.Notes) == 0 && in.Gender == "" && in.Season == "" && in.Time == "" {
		errs = append(errs, "give at least one of description, accords, notes, gender, season or time")
	}
	if len(errs) > 0 {
		return view.MatchList{}, errors.New(strings.Join(errs, "; "))
	}
	res, echo, err := view.DescribedMatch(ix, desc, q)
	if err != nil {
		return view.MatchList{}, explain(err, "", "")
	}
	return u.MatchList(echo.Always(), res), nil
}

// recommend checks a recommend_perfumes input with the API's rules and
// ranks the recommendations.
func recommend(ix *index.Index, u view.Builder, in RecommendInput) (view.RecommendList, error) {
	var errs []string
	switch {
	case len(in.Liked) == 0:
		errs = append(errs, fmt.Sprintf("liked: give 1 to %d perfume slugs", view.MaxLiked))
	case len(in.Liked) > view.MaxLiked:
		errs = append(errs, fmt.Sprintf("liked: at most %d perfumes", view.MaxLiked))
	}
	if len(in.Disliked) > view.MaxLiked {
		errs = append(errs, fmt.Sprintf("disliked: at most %d perfumes", view.MaxLiked))
	}
	if len(in.Avoid) > view.MaxListItems {
		errs = append(errs, fmt.Sprintf("avoid: at most %d", view.MaxListItems))
	}
	q := index.RecommendQuery{Liked: in.Liked, Disliked: in.Disliked, Avoid: in.Avoid, Page: 1}
	if in.Gender != "" {
		g, ok := view.Canonical(strings.TrimSpace(in.Gender), view.Genders)
		if !ok {
			errs = append(errs, fmt.Sprintf("gender: unknown gender %q; use %s", in.Gender, strings.Join(view.Genders, ", ")))
		}
		q.Gender = catalog.Gender(g)
	}
	n, err := limit(in.Limit, view.RecommendLimit)
	if err != nil {
		errs = append(errs, err.Error())
	}
	q.Limit = n
	if len(errs) > 0 {
		return view.RecommendList{}, errors.New(strings.Join(errs, "; "))
	}
	res, err := ix.Recommend(q)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return view.RecommendList{}, notFound(err.Error() + "; call resolve_perfume with a name to find its slug")
	case err != nil:
		return view.RecommendList{}, explain(err, "", "")
	}
	return u.RecommendList(res), nil
}

// resolve finds the perfumes a free text names with the parser that
// reads descriptions (describe.Parser.Resolve), so that both know the same
// filler words and brand names.
func resolve(ix *index.Index, in ResolveInput) (Resolved, error) {
	s, err := text("text", in.Text)
	if err != nil {
		return Resolved{}, err
	}
	if s == "" {
		return Resolved{}, errors.New("text: give the perfume's name, and its brand if you know it")
	}
	n, err := limit(in.Limit, resolveLimit)
	if err != nil {
		return Resolved{}, err
	}
	found := describe.For(ix).Resolve(ix, s, n)
	out := Resolved{Candidates: make([]Candidate, 0, len(found))}
	for _, c := range found {
		out.Candidates = append(out.Candidates, Candidate{Slug: c.Slug(), Name: c.Name(), Brand: c.Brand(), Score: c.Score})
	}
	return out, nil
}
