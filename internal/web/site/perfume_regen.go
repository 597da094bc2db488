//go:build tplgen

package site

import (
	"errors"
	"strings"
)

// writePerfume stands in for the generated writer (perfume_gen.go) in
// the build that go generate writes it from: that build leaves the
// generated file out, so that a stale one that no longer compiles (a
// field of perfumePage renamed, say) cannot stop its own regeneration.
func writePerfume(*strings.Builder, *perfumePage) error {
	return errors.New("site: built with -tags tplgen, which has no perfume page writer")
}
