package ranking

import "math"

// WeightedRating is a perfume's rating (1–5) weighted by its number of
// ratings: the Bayesian average of the rating and prior (usually the
// catalogue's mean rating), as if ConfidenceRatings ratings of prior were
// added to the perfume's own. A perfume with no ratings gets prior; its
// own rating counts half at ConfidenceRatings ratings (where Confidence
// trusts its accords halfway) and nearly alone with thousands. A raw
// rating would put a perfume rated 5 by three people above one rated 4.4
// by 20,000; this order puts well-known, well-rated perfumes first, which
// is what a "popular" order of equally fitting perfumes means.
func WeightedRating(rating float64, ratings int, prior float64) float64 {
	n := float64(max(ratings, 0))
	return (n*rating + ConfidenceRatings*prior) / (n + ConfidenceRatings)
}

// Renown is how far a perfume is known and liked, the order of popular
// lists (a description's results, match's sort=popular, the
// recommendations among near-equals): its WeightedRating above the floor
// of the 1–5 scale, times the logarithm of its number of ratings. A
// perfume rated well by tens of thousands leads one rated a little
// better by a few hundred, and one rated badly falls back however many
// rated it.
func Renown(rating float64, ratings int, prior float64) float64 {
	return (WeightedRating(rating, ratings, prior) - 1) * math.Log1p(float64(max(ratings, 0)))
}
