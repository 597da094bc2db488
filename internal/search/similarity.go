package search

import "math"

// Note layer weights in perfume similarity. Base notes last longest and
// shape how a perfume wears most, top notes are gone within the hour; notes
// given without a pyramid get the middle weight.
const (
	WeightTop      = 1.0
	WeightMiddle   = 1.5
	WeightBase     = 2.0
	WeightUnplaced = 1.5
)

// AccordShare is the part of similarity that accords decide; notes decide
// the rest. Accords summarise the whole scent, notes name its materials.
const AccordShare = 0.6

// CuratedPull is how far a curated pair's similarity is pulled towards 1:
// an operator's pair halves the distance to a perfect score, so it rises in
// the list but stays comparable with the rest.
const CuratedPull = 0.5

// Similarity combines the cosine similarity of two perfumes' accord vectors
// (strengths) and of their weighted note vectors into 0–1:
//
//	AccordShare·accordCos + (1−AccordShare)·noteCos
//
// When the source has no notes, accords decide alone, and the other way
// round; a candidate lacking what the source has scores 0 on that part.
// curated applies CuratedPull. The result is comparable across perfumes.
func Similarity(accordCos, noteCos float64, srcAccords, srcNotes, curated bool) float64 {
	wa, wn := SimilarityWeights(srcAccords, srcNotes)
	s := min(max(wa*accordCos+wn*noteCos, 0), 1)
	if curated {
		s = Curated(s)
	}
	return s
}

// SimilarityWeights are the weights Similarity gives the accord and the
// note cosine for a source with or without accords and notes. Hot loops
// use them to compute Similarity without a call per candidate.
func SimilarityWeights(srcAccords, srcNotes bool) (accords, notes float64) {
	switch {
	case srcAccords && srcNotes:
		return AccordShare, 1 - AccordShare
	case srcAccords:
		return 1, 0
	case srcNotes:
		return 0, 1
	}
	return 0, 0
}

// Curated applies CuratedPull to a similarity in 0–1.
func Curated(s float64) float64 { return s + (1-s)*CuratedPull }

// NoteIDF is the weight of a note found in df of n perfumes: rare notes
// (oud, saffron) tell more about a perfume than ubiquitous ones (musk), so
// sharing them counts more. It is 1 for a note every perfume has.
func NoteIDF(df, n int) float64 {
	return 1 + math.Log(float64(n+1)/float64(df+1))
}

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

// Score turns a 0–1 similarity into a matchScore: 0–100, one decimal.
func Score(s float64) float64 { return Round1(100 * min(max(s, 0), 1)) }

// Round1 rounds to one decimal.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }
