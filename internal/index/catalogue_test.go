package index

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// The real catalogue is decoded here rather than with the importer, which
// this package must not depend on. It is read once per test binary.
var (
	realOnce  sync.Once
	realPs    []catalog.Perfume
	realRef   *bundled.Reference
	realError error
)

type jsonRow struct {
	ID            int64                    `json:"fragranticaId"`
	Name          string                   `json:"name"`
	Brand         string                   `json:"brand"`
	Gender        catalog.Gender           `json:"gender"`
	Year          int                      `json:"year"`
	Rating        float64                  `json:"rating"`
	RatingCount   int                      `json:"ratingCount"`
	Longevity     float64                  `json:"longevity"`
	Sillage       float64                  `json:"sillage"`
	Seasons       catalog.Seasons          `json:"seasons"`
	DayNight      catalog.DayNight         `json:"dayNight"`
	Accords       []catalog.AccordStrength `json:"accords"`
	Notes         catalog.NotePyramid      `json:"notes"`
	Perfumers     []string                 `json:"perfumers"`
	Description   string                   `json:"description"`
	Family        string                   `json:"family"`
	Concentration string                   `json:"concentration"`
}

// realCatalogue returns a fresh copy of the bundled catalogue as the
// importer would store it: shares scaled to 0–100, slugs made unique the
// contract's way, tiers from the brand table.
func realCatalogue(tb testing.TB) ([]catalog.Perfume, *bundled.Reference) {
	tb.Helper()
	realOnce.Do(func() { realPs, realRef, realError = decodeReal() })
	if realError != nil {
		tb.Fatalf("load bundled catalogue: %v", realError)
	}
	out := make([]catalog.Perfume, len(realPs))
	for i, p := range realPs {
		out[i] = p
		out[i].Accords = append([]catalog.AccordStrength(nil), p.Accords...)
		out[i].Perfumers = append([]string(nil), p.Perfumers...)
		n := p.Notes
		out[i].Notes = catalog.NotePyramid{Top: clone(n.Top), Middle: clone(n.Middle), Base: clone(n.Base), Unplaced: clone(n.Unplaced)}
	}
	return out, realRef
}

func clone(s []string) []string { return append([]string(nil), s...) }

func decodeReal() ([]catalog.Perfume, *bundled.Reference, error) {
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, nil, err
	}
	zr, err := gzip.NewReader(bundled.Catalogue())
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var ps []catalog.Perfume
	used := map[string]bool{}
	for sc.Scan() {
		var r jsonRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, nil, err
		}
		ps = append(ps, toPerfume(r, ref, used))
	}
	return ps, ref, sc.Err()
}

func toPerfume(r jsonRow, ref *bundled.Reference, used map[string]bool) catalog.Perfume {
	brandSlug := search.Slugify(r.Brand)
	slug := ""
	for _, c := range catalog.SlugCandidates(brandSlug+"-"+search.Slugify(r.Name), r.Year, r.ID) {
		if !used[c] {
			slug = c
			break
		}
	}
	used[slug] = true
	s, d := r.Seasons, r.DayNight
	return catalog.Perfume{
		ID: r.ID, Slug: slug, Name: r.Name, Brand: r.Brand, BrandSlug: brandSlug, Year: r.Year,
		Gender: r.Gender, Rating: r.Rating, RatingCount: r.RatingCount, Longevity: r.Longevity,
		Sillage: r.Sillage, Concentration: r.Concentration, Description: r.Description, Family: r.Family,
		Accords: r.Accords, Notes: r.Notes, Perfumers: r.Perfumers,
		Seasons:   catalog.Seasons{Winter: 100 * s.Winter, Spring: 100 * s.Spring, Summer: 100 * s.Summer, Fall: 100 * s.Fall},
		DayNight:  catalog.DayNight{Day: 100 * d.Day, Night: 100 * d.Night},
		PriceTier: ref.Tier(r.Brand),
	}
}

// The real catalogue's index, built once per test binary.
var (
	realIxOnce sync.Once
	realIx     *Index
)

func realIndex(tb testing.TB) *Index {
	tb.Helper()
	realIxOnce.Do(func() {
		ps, ref := realCatalogue(tb)
		realIx = Build(ps, Options{AccordColor: ref.Color})
	})
	return realIx
}
