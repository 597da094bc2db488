package ranking

import (
	"math"
	"testing"
)

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, n, conf         float64
		srcA, srcN, curate bool
		want               float64
	}{
		{1, 1, 1, true, true, false, 1},
		{1, 0, 1, true, true, false, AccordShare},
		{0, 1, 1, true, true, false, 1 - AccordShare},
		{0.5, 0.9, 1, true, false, false, 0.5},
		{0.5, 0.9, 1, false, true, false, 0.9},
		{0.5, 0.5, 1, false, false, false, 0},
		{0.5, 0.5, 1, true, true, true, 0.75},
		{0.5, 0.5, 0.5, true, true, true, 0.625}, // confidence before the curated pull
		{1, 1, 0.5, true, true, false, 0.5},
		{1.2, 1.2, 1, true, true, false, 1},
		{-1, 0, 1, true, true, false, 0},
	}
	for _, tt := range tests {
		if got := similarity(tt.a, tt.n, tt.conf, tt.srcA, tt.srcN, tt.curate); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Similarity(%v, %v, %v, %v, %v, %v) = %v, want %v", tt.a, tt.n, tt.conf, tt.srcA, tt.srcN, tt.curate, got, tt.want)
		}
	}
}

func TestConfidence(t *testing.T) {
	if c := Confidence(ConfidenceRatings - 1); c != 0.5 {
		t.Errorf("Confidence at ConfidenceRatings-1 ratings = %v, want 0.5", c)
	}
	if !(Confidence(0) > 0) || !(Confidence(-5) == Confidence(0)) || !(Confidence(30000) < 1) {
		t.Error("confidence must stay in (0, 1)")
	}
	if !(Confidence(27000) > Confidence(2000)) || !(Confidence(2000) > Confidence(50)) {
		t.Error("confidence must grow with ratings")
	}
}

func TestAccordFit(t *testing.T) {
	if AccordFit(40, 40) != 1 || AccordFit(40, 0) != 0 {
		t.Error("fit at the wanted strength must be 1, absent 0")
	}
	if !(AccordFit(40, 45) > AccordFit(40, 100)) {
		t.Error("an accord asked at 40 must prefer 45 over 100")
	}
	if !(AccordFit(100, 100) > AccordFit(100, 60)) {
		t.Error("an accord asked at 100 must prefer stronger")
	}
	if f := AccordFit(0, 100); f < 0.5 || f > 1 {
		t.Errorf("fit out of range: %v", f)
	}
}

func TestNoteIDFAndScore(t *testing.T) {
	if !(NoteIDF(10, 1000) > NoteIDF(500, 1000)) || NoteIDF(1000, 1000) != 1 {
		t.Error("rarer notes must weigh more; a note of every perfume weighs 1")
	}
	for _, tt := range []struct{ in, want float64 }{{0.5, 50}, {0.12345, 12.3}, {1.5, 100}, {-1, 0}, {0.99999, 100}} {
		if got := Score(tt.in); got != tt.want {
			t.Errorf("Score(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// similarity is the formula of SimilarityWeights' documentation, written
// out as the reference the table above pins.
func similarity(accordCos, noteCos, confidence float64, srcAccords, srcNotes, curated bool) float64 {
	wa, wn := SimilarityWeights(srcAccords, srcNotes)
	s := min(max(confidence*(wa*accordCos+wn*noteCos), 0), 1)
	if curated {
		s = Curated(s)
	}
	return s
}
