package evaluation

import (
	"fmt"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
)

// BundledPerfumes reads the catalogue shipped in the binary as a fresh
// install stores it: each perfume's slug made unique in file order with
// catalog.SlugCandidates, as the stores do on a first import. The
// evaluation sets name perfumes by these slugs.
func BundledPerfumes() ([]catalog.Perfume, *bundled.Reference, error) {
	ref, err := bundled.LoadReference()
	if err != nil {
		return nil, nil, fmt.Errorf("evaluation: %w", err)
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		return nil, nil, fmt.Errorf("evaluation: %w", err)
	}
	taken := make(map[string]bool, len(res.Perfumes))
	for i := range res.Perfumes {
		p := &res.Perfumes[i]
		p.Slug = catalog.PickSlug(*p, taken)
	}
	return res.Perfumes, ref, nil
}
