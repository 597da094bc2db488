package client

import "context"

// The API's endpoints with their answers typed and their problems as
// *Error. Parameters are the generated ones (nil: the defaults); API()
// reaches every endpoint of the document with its raw answer.

// Perfumes is GET /api/perfumes: one page of the list or of a search.
func (c *Client) Perfumes(ctx context.Context, p *ListPerfumesParams) (*PerfumePage, error) {
	r, err := c.api.ListPerfumesWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Perfume is GET /api/perfumes/{slug}: the full detail.
func (c *Client) Perfume(ctx context.Context, slug string) (*PerfumeDetail, error) {
	r, err := c.api.GetPerfumeWithResponse(ctx, slug)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Similar is GET /api/perfumes/{slug}/similar.
func (c *Client) Similar(ctx context.Context, slug string, p *SimilarPerfumesParams) (*SimilarList, error) {
	r, err := c.api.SimilarPerfumesWithResponse(ctx, slug, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Dupes is GET /api/perfumes/{slug}/dupes: cheaper alternatives.
func (c *Client) Dupes(ctx context.Context, slug string, p *DupePerfumesParams) (*DupeList, error) {
	r, err := c.api.DupePerfumesWithResponse(ctx, slug, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Match is GET /api/perfumes/match: perfumes matching a profile.
func (c *Client) Match(ctx context.Context, p *MatchPerfumesParams) (*MatchList, error) {
	r, err := c.api.MatchPerfumesWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Changes is GET /api/perfumes/changes: one page of the change feed (Sync
// walks it).
func (c *Client) Changes(ctx context.Context, p *PerfumeChangesParams) (*ChangePage, error) {
	r, err := c.api.PerfumeChangesWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Brands is GET /api/brands.
func (c *Client) Brands(ctx context.Context, p *ListBrandsParams) (*BrandList, error) {
	r, err := c.api.ListBrandsWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Notes is GET /api/notes.
func (c *Client) Notes(ctx context.Context, p *ListNotesParams) (*NoteList, error) {
	r, err := c.api.ListNotesWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Perfumers is GET /api/perfumers.
func (c *Client) Perfumers(ctx context.Context) (*PerfumerList, error) {
	r, err := c.api.ListPerfumersWithResponse(ctx)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Perfumer is GET /api/perfumers/{slug}: a perfumer and a page of their
// perfumes.
func (c *Client) Perfumer(ctx context.Context, slug string, p *GetPerfumerParams) (*PerfumerDetail, error) {
	r, err := c.api.GetPerfumerWithResponse(ctx, slug, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Accords is GET /api/accords.
func (c *Client) Accords(ctx context.Context, p *ListAccordsParams) (*AccordList, error) {
	r, err := c.api.ListAccordsWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// Usage is GET /api/usage: the key's tier, limits, what is left, usage.
func (c *Client) Usage(ctx context.Context, p *GetUsageParams) (*Usage, error) {
	r, err := c.api.GetUsageWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// SiteSearchResult is the answer of GET /api/search (the document
// describes it inline, so the generated code names it nowhere).
type SiteSearchResult = struct {
	Perfumes []SiteSearchItem `json:"perfumes"`
}

// SiteSearchItem is one suggestion of GET /api/search.
type SiteSearchItem = struct {
	Brand            string `json:"brand"`
	Image            string `json:"image"`
	ImageTransparent string `json:"imageTransparent"`
	Name             string `json:"name"`
	Slug             string `json:"slug"`
}

// Search is GET /api/search: the keyless suggestions of the site search.
func (c *Client) Search(ctx context.Context, p *SiteSearchParams) (*SiteSearchResult, error) {
	r, err := c.api.SiteSearchWithResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	return result(r.HTTPResponse, r.Body, r.JSON200, nil)
}
