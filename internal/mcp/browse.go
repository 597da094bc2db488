package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/view"
)

// GetPerfumesInput is get_perfumes' input.
type GetPerfumesInput struct {
	Slugs []string `json:"slugs" jsonschema:"the perfumes' slugs, 1 to 100, e.g. ['dior-sauvage','creed-aventus'] (from resolve_perfume or search_perfumes)"`
}

// PerfumeList is get_perfumes' output.
type PerfumeList struct {
	Data    []view.Perfume `json:"data" jsonschema:"the perfumes found, in the order asked (a slug asked twice, once)"`
	Missing []string       `json:"missing" jsonschema:"the slugs asked that no perfume has"`
}

// searchPerfumes runs search_perfumes: the text query and brand as ever,
// and the list's filters and sort read by the API's own parser
// (view.ParseBrowse), so a tool call and GET /api/perfumes take the same
// values and refuse the same mistakes.
func searchPerfumes(ix *index.Index, u view.Builder, in SearchInput) (view.Page, error) {
	q, err := text("query", in.Query)
	if err != nil {
		return view.Page{}, err
	}
	b, err := text("brand", in.Brand)
	if err != nil {
		return view.Page{}, err
	}
	n, err := limit(in.Limit, view.PerfumesLimit)
	if err != nil {
		return view.Page{}, err
	}
	if in.Page < 0 || in.Page > view.MaxPage {
		return view.Page{}, fmt.Errorf("page: a number from 1 to %d", view.MaxPage)
	}
	v := url.Values{}
	for name, val := range map[string]string{
		"gender": strings.Join(in.Gender, ","), "accords": strings.Join(in.Accords, ","), "notes": strings.Join(in.Notes, ","),
		"season": in.Season, "time": in.Time, "year": in.Year, "sort": in.Sort,
	} {
		if val != "" {
			v.Set(name, val)
		}
	}
	if in.MinRating != 0 {
		v.Set("minRating", strconv.FormatFloat(in.MinRating, 'g', -1, 64))
	}
	bq, err := view.ParseBrowse(v)
	if err == nil {
		err = ix.CheckBrowse(bq)
	}
	if err != nil {
		return view.Page{}, explain(err, "", "")
	}
	bq.Q, bq.Brand, bq.Page, bq.Limit = q, b, max(in.Page, 1), n
	if view.IsPlainList(bq) {
		return u.Page(ix.Perfumes(index.ListQuery{Q: q, Brand: b, Page: bq.Page, Limit: n})), nil
	}
	res, err := ix.Browse(bq)
	if err != nil {
		return view.Page{}, explain(err, "", "")
	}
	return u.Page(res.Page), nil
}

// getPerfumes runs get_perfumes: a lookup of several slugs at once.
func getPerfumes(ix *index.Index, u view.Builder, in GetPerfumesInput) (PerfumeList, error) {
	var slugs []string
	for _, s := range in.Slugs {
		if s = strings.TrimSpace(s); s != "" {
			slugs = append(slugs, s)
		}
	}
	switch {
	case len(slugs) == 0:
		return PerfumeList{}, errors.New("slugs: give at least one perfume slug")
	case len(slugs) > index.MaxIDs:
		return PerfumeList{}, fmt.Errorf("slugs: at most %d at once", index.MaxIDs)
	}
	res, err := ix.Browse(index.BrowseQuery{IDs: slugs})
	if err != nil {
		return PerfumeList{}, explain(err, "", "")
	}
	return PerfumeList{Data: u.Page(res.Page).Data, Missing: res.Missing}, nil
}
