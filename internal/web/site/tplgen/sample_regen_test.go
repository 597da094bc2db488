//go:build tplgen

package tplgen

import (
	"errors"
	"strings"
)

// writeSample stands in for the generated writer (sample_gen_test.go) in
// the build that go generate writes it from, which leaves that file out.
func writeSample(*strings.Builder, *sample) error {
	return errors.New("tplgen: built with -tags tplgen, which has no sample writer")
}
