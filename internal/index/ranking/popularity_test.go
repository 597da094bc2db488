package ranking

import "testing"

func TestWeightedRating(t *testing.T) {
	const prior = 4.0
	if got := WeightedRating(5, 0, prior); got != prior {
		t.Errorf("no ratings: %v, want the prior %v", got, prior)
	}
	if got := WeightedRating(0, -3, prior); got != prior {
		t.Errorf("negative count: %v, want the prior %v", got, prior)
	}
	if got := WeightedRating(5, ConfidenceRatings, prior); got != 4.5 {
		t.Errorf("at ConfidenceRatings ratings: %v, want halfway 4.5", got)
	}
	if few, many := WeightedRating(5, 3, prior), WeightedRating(4.4, 20000, prior); !(many > few) {
		t.Errorf("4.4 from 20,000 ratings (%v) must lead 5 from 3 (%v)", many, few)
	}
	if got := WeightedRating(3, 1_000_000, prior); got < 3 || got > 3.001 {
		t.Errorf("a million ratings: %v, want nearly the rating 3", got)
	}
	if lo, hi := WeightedRating(4.2, 500, prior), WeightedRating(4.3, 500, prior); !(hi > lo) {
		t.Error("at equal counts the better rating must lead")
	}
}

func TestRenownPutsKnownWellRatedPerfumesFirst(t *testing.T) {
	const prior = 3.9
	known := Renown(4.3, 25000, prior)
	niche := Renown(4.7, 300, prior)
	panned := Renown(2.5, 30000, prior)
	if !(known > niche) {
		t.Errorf("4.3 by 25,000 (%v) not above 4.7 by 300 (%v)", known, niche)
	}
	if !(known > panned) {
		t.Errorf("4.3 by 25,000 (%v) not above 2.5 by 30,000 (%v)", known, panned)
	}
	if Renown(4, 0, prior) != 0 {
		t.Errorf("an unrated perfume has renown %v, want 0", Renown(4, 0, prior))
	}
}
