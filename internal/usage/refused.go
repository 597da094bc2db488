package usage

import (
	"cmp"
	"slices"
	"strings"
)

// Refused is what of counts a limit refused: the counts of ClassRateLimited
// that hold a request, newest first, and within a period by endpoint (byte
// order).
func Refused(counts []Count) []Count {
	var out []Count
	for _, c := range counts {
		if c.StatusClass == ClassRateLimited && c.Count > 0 {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Count) int {
		return cmp.Or(b.Start.Compare(a.Start), strings.Compare(a.Endpoint, b.Endpoint))
	})
	return out
}
