package api

import (
	"net/http"
	"strconv"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/view"
)

// recommendPerfumes is GET /api/perfumes/recommend: liked (1 to 10 slugs)
// is required; disliked (up to 10 slugs), avoid (accord or note names),
// gender, page and limit are optional.
func (a *API) recommendPerfumes(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	q := index.RecommendQuery{
		Liked:    p.list("liked"),
		Disliked: p.list("disliked"),
		Avoid:    p.list("avoid"),
		Gender:   catalog.Gender(p.oneOf("gender", view.Genders)),
		Page:     p.Page(),
		Limit:    p.Limit(view.RecommendLimit),
	}
	switch {
	case len(q.Liked) == 0 && p.err() == nil:
		p.Fail("liked", "give the perfumes liked: 1 to "+strconv.Itoa(view.MaxLiked)+" slugs, comma-separated")
	case len(q.Liked) > view.MaxLiked:
		p.Fail("liked", "at most "+strconv.Itoa(view.MaxLiked)+" perfumes")
	}
	if len(q.Disliked) > view.MaxLiked {
		p.Fail("disliked", "at most "+strconv.Itoa(view.MaxLiked)+" perfumes")
	}
	if err := p.err(); err != nil {
		return err
	}
	ix := a.cfg.Catalogue.Load()
	return a.answer(w, r, ix, cacheKey("recommend", q), func(en *encoder, b []byte) ([]byte, error) {
		res, err := ix.Recommend(q)
		if err != nil {
			return nil, err
		}
		return en.appendRecommendAnswer(b, res), nil
	})
}

// appendRecommendAnswer appends GET /api/perfumes/recommend: the liked
// perfumes, the page of recommendations with their reasons, and paging.
func (en *encoder) appendRecommendAnswer(b []byte, res index.RecommendResult) []byte {
	b = append(b, `{"source":[`...)
	for i, e := range res.Source {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendIdent(b, e)
		b = append(b, '}')
	}
	b = append(b, `],"data":[`...)
	for i := range res.Items {
		it := &res.Items[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		item := en.item(it.Entry)
		b = en.appendIdentOf(b, it.Entry, item)
		b = append(b, `,"matchScore":`...)
		b = jsonenc.AppendFloat(b, it.Score)
		b = append(b, `,"rating":`...)
		b = jsonenc.AppendOptFloat(b, it.Rating)
		b = append(b, `,"ratingCount":`...)
		b = jsonenc.AppendInt(b, it.RatingCount)
		b = en.appendImages(b, it.ID, false)
		b = append(b, `,"accords":`...)
		b = en.appendAccordsOf(b, it.Entry, item)
		b = append(b, `,"reasons":[`...)
		for j, why := range it.Reasons {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"perfume":{`...)
			b = appendIdent(b, why.Liked)
			b = append(b, `},"accords":`...)
			b = en.appendAccords(b, why.Accords)
			b = append(b, `,"notes":`...)
			b = jsonenc.AppendStrings(b, why.Notes)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, ']')
	return appendPaging(b, res.Total, res.Page, res.Pages, res.Limit)
}
