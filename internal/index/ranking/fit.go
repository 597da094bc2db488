package ranking

import "math"

// Match ranks perfumes by how they fit a wished profile, not against a
// source; its answers are ranked on each call and never kept, so a change
// here needs no bump of Format.

// AccordFit scores how well a perfume's accord strength have (0 when the
// perfume lacks it) meets a wanted strength want, both 0–100: 1 at the
// wanted strength, falling to 0.5 at the far end of the scale, 0 when
// absent. An accord asked at 40 thus prefers perfumes where it is about 40
// over ones where it dominates, and any perfume having it over one without.
func AccordFit(want, have float64) float64 {
	if have <= 0 {
		return 0
	}
	return 1 - math.Abs(have-want)/200
}
