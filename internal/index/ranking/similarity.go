package ranking

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
// the rest. Accords summarise the whole scent as the community votes it,
// notes name materials as the house lists them, and clone houses list
// different ones for the same scent, so accords weigh more. Tuned on the
// dupes evaluation set (internal/evaluation): 0.6 and 0.8 do no better.
const AccordShare = 0.7

// ConfidenceRatings is the number of ratings at which a perfume's accords
// and notes are trusted halfway: see Confidence.
const ConfidenceRatings = 100

// CuratedPull is how far a curated pair's similarity is pulled towards 1:
// an operator's pair halves the distance to a perfect score, so it rises in
// the list but stays comparable with the rest.
const CuratedPull = 0.5

// Confidence is how far a perfume's community data is trusted, 0–1:
// (n+1)/(n+1+ConfidenceRatings) for n ratings. Accord strengths are vote
// shares; with a few dozen votes they are noise, and a perfume matching a
// source on noise would otherwise outrank a well-known one that matches
// nearly as well (its own flanker with 50 ratings above the one with
// 27,000). 100 ratings give 0.5, 1,000 give 0.91, 10,000 give 0.99.
func Confidence(ratings int) float64 {
	n := float64(max(ratings, 0) + 1)
	return n / (n + ConfidenceRatings)
}

// SimilarityWeights are the weights wa and wn of the accord and the note
// cosine in the similarity of a candidate perfume to a source, 0–1 (Score
// turns it into a matchScore, 0–100):
//
//	s = Confidence(candidate's ratings) · (wa·accordCos + wn·noteCos)
//	    then, for a curated pair, Curated(s)
//
// accordCos is the cosine of the two accord-strength vectors, noteCos the
// cosine of the note vectors (each note weighted by its pyramid layer and
// its rarity, NoteIDF). wa = AccordShare and wn = 1−AccordShare, or 1 and 0
// when the source has no notes, 0 and 1 when it has no accords. The
// formula reads only the two perfumes and the catalogue-wide note
// rarities, so a score means the same for every source: 100 is a
// candidate with the source's exact accords and notes and enough ratings
// to trust them. The index computes it in its hot loops; similarity_test.go
// holds the formula as a reference. A change to it changes the kept
// lists: bump Format.
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

// Score turns a 0–1 similarity into a matchScore: 0–100, one decimal.
func Score(s float64) float64 { return Round1(100 * min(max(s, 0), 1)) }

// Round1 rounds to one decimal.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }
