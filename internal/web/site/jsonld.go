package site

import (
	"html/template"

	"github.com/fragrance-data/fragrance/internal/web"
)

// The structured data of a perfume page (schema.org, JSON-LD), within the
// rules Google documents for product snippets: a Product must carry a
// review, an aggregateRating or offers to be eligible. We sell nothing and
// know no price, so a Product never has offers; it carries the
// aggregateRating of the catalogue's votes, with ratingValue and
// ratingCount exactly as the API's rating and ratingCount. A perfume
// without votes has no true aggregateRating, so its page has no Product
// markup at all (only the breadcrumbs): nothing there claims a rich result.

// productLD is a schema.org Product.
type productLD struct {
	Context         string    `json:"@context"`
	Type            string    `json:"@type"`
	Name            string    `json:"name"`
	Brand           brandLD   `json:"brand"`
	Image           []string  `json:"image"`
	Description     string    `json:"description,omitempty"`
	URL             string    `json:"url"`
	AggregateRating *ratingLD `json:"aggregateRating"`
}

type brandLD struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

type ratingLD struct {
	Type        string  `json:"@type"`
	RatingValue float64 `json:"ratingValue"`
	RatingCount int     `json:"ratingCount"`
	BestRating  int     `json:"bestRating"`
	WorstRating int     `json:"worstRating"`
}

// breadcrumbLD is a schema.org BreadcrumbList.
type breadcrumbLD struct {
	Context string   `json:"@context"`
	Type    string   `json:"@type"`
	Items   []itemLD `json:"itemListElement"`
}

type itemLD struct {
	Type     string `json:"@type"`
	Position int    `json:"position"`
	Name     string `json:"name"`
	Item     string `json:"item"`
}

// rated reports whether a perfume has a true aggregate rating on the
// 1–5 scale the markup declares.
func (p *perfumePage) rated() bool {
	return p.Rating != nil && *p.Rating >= 1 && *p.Rating <= 5 && p.RatingCount > 0
}

// structuredData is the JSON-LD of a perfume page: the Product when the
// perfume is rated, and the breadcrumbs.
func (s *Site) structuredData(p *perfumePage, crumbs []web.Crumb) ([]template.JS, error) {
	var out []template.JS
	if p.rated() {
		images := []string{p.Image}
		if p.ImageTransparentAvailable {
			images = append(images, p.ImageTransparent)
		}
		prod, err := web.MarshalJSONLD(productLD{
			Context: "https://schema.org", Type: "Product",
			Name:        p.Name,
			Brand:       brandLD{Type: "Brand", Name: p.Brand},
			Image:       images,
			Description: summary(p.Description, 5000),
			URL:         s.base + PerfumeURL(p.Slug),
			AggregateRating: &ratingLD{Type: "AggregateRating", RatingValue: *p.Rating, RatingCount: p.RatingCount,
				BestRating: 5, WorstRating: 1},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, prod)
	}
	bc, err := s.breadcrumbs(crumbs)
	if err != nil {
		return nil, err
	}
	return append(out, bc), nil
}

// breadcrumbs is the BreadcrumbList of a trail.
func (s *Site) breadcrumbs(crumbs []web.Crumb) (template.JS, error) {
	b := breadcrumbLD{Context: "https://schema.org", Type: "BreadcrumbList"}
	for i, c := range crumbs {
		b.Items = append(b.Items, itemLD{Type: "ListItem", Position: i + 1, Name: c.Name, Item: s.base + c.Path})
	}
	return web.MarshalJSONLD(b)
}
