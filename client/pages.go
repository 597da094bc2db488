package client

import (
	"context"
	"iter"
)

// AllPerfumes yields every perfume of the list or search p asks for, page
// after page from p.Page (default the first), in the API's order; the
// first error is yielded and ends it. Pages of p.Limit perfumes (default
// 100, the most a page holds).
func (c *Client) AllPerfumes(ctx context.Context, p *ListPerfumesParams) iter.Seq2[PerfumeListItem, error] {
	q := ListPerfumesParams{}
	if p != nil {
		q = *p
	}
	return walkPages(q.Page, &q.Limit, 100, func(page int) ([]PerfumeListItem, int, error) {
		q.Page = &page
		r, err := c.Perfumes(ctx, &q)
		if err != nil {
			return nil, 0, err
		}
		return r.Data, r.Pages, nil
	})
}

// AllMatches yields every perfume matching the profile p, best first, as
// AllPerfumes does (pages of 50, the most a match page holds).
func (c *Client) AllMatches(ctx context.Context, p *MatchPerfumesParams) iter.Seq2[MatchItem, error] {
	q := MatchPerfumesParams{}
	if p != nil {
		q = *p
	}
	return walkPages(q.Page, &q.Limit, 50, func(page int) ([]MatchItem, int, error) {
		q.Page = &page
		r, err := c.Match(ctx, &q)
		if err != nil {
			return nil, 0, err
		}
		return r.Data, r.Pages, nil
	})
}

// walkPages yields the items of the pages fetch returns (with the number
// of pages) from page first (nil: 1), with limit set to def when unset.
func walkPages[T any](first *int, limit **int, def int, fetch func(page int) ([]T, int, error)) iter.Seq2[T, error] {
	if *limit == nil {
		*limit = &def
	}
	page := 1
	if first != nil {
		page = *first
	}
	return func(yield func(T, error) bool) {
		for ; ; page++ {
			items, pages, err := fetch(page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if page >= pages || len(items) == 0 {
				return
			}
		}
	}
}
