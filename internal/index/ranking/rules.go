package ranking

// The rules similar and dupes lists follow beside the score. A change to
// any of them changes the kept lists: bump Format.

// MaxPerLine is the most perfumes of one product line (a brand and the
// first distinctive word of its names: Sauvage, Sauvage Elixir and Eau
// Sauvage are one line) a similar or dupes list holds, the source's own
// line included. Three lets a source's best flankers, or a clone house's
// versions of one scent, show without taking a page.
const MaxPerLine = 3

// CapLines returns the first limit of ranked (best first) with at most
// MaxPerLine of any product line, line(r) naming r's line. The best of a
// line keep their places and the rest are skipped, so the list stays in
// ranked's order, a line's flankers still show, and since the cap does not
// depend on limit a shorter list is always the start of a longer one
// (what lets a kept list answer any smaller limit).
func CapLines[T any](ranked []T, limit int, line func(T) uint64) []T {
	out := make([]T, 0, max(min(limit, len(ranked)), 0))
	seen := make(map[uint64]int, max(limit, 0))
	for _, r := range ranked {
		if len(out) >= limit {
			break
		}
		if l := line(r); seen[l] < MaxPerLine {
			seen[l]++
			out = append(out, r)
		}
	}
	return out
}

// Cheaper reports whether a perfume of price tier rank tier may be a dupe
// of a source of tier rank src (catalog.PriceTier.Rank: 0 unknown, higher
// dearer): its tier must be known and strictly lower. A source of unknown
// tier has no dupes.
func Cheaper(tier, src uint8) bool { return tier > 0 && tier < src }
