package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
)

// readCurated reads the operator's curated similar pairs: a CSV file of
// "slug,slug" rows; blank lines and lines starting with # are skipped. An
// empty path means no curated pairs.
func readCurated(path string) ([][2]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("curated pairs: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = 2
	r.TrimLeadingSpace = true
	var out [][2]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("curated pairs %s: %w", path, err)
		}
		out = append(out, [2]string{strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])})
	}
}
