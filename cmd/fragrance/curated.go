package main

import (
	"fmt"
	"os"

	"github.com/fragrance-data/fragrance/internal/importer"
)

// readCurated reads the operator's curated similar pairs from the CSV file
// at path (see importer.ReadCurated). An empty path means no curated pairs.
func readCurated(path string) ([][2]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("curated pairs: %w", err)
	}
	defer f.Close()
	return importer.ReadCurated(f, path)
}
