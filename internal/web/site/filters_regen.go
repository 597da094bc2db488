//go:build tplgen

package site

import (
	"errors"
	"strings"
)

// writeFilters stands in for the generated writer (filters_gen.go) in
// the build that go generate writes it from (see writePerfume).
func writeFilters(*strings.Builder, *filterPanel) error {
	return errors.New("site: built with -tags tplgen, which has no filter panel writer")
}
