package api

import "github.com/fragrance-data/fragrance/internal/index"

// UseCatalogue makes catalogue the bundled catalogue of the package's
// internal tests (refIndex).
func UseCatalogue(catalogue func() (*index.Index, error)) { refIndex = catalogue }
