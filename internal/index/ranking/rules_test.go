package ranking

import (
	"slices"
	"testing"
)

func TestCapLines(t *testing.T) {
	// Items are their own line ids; line 7 has five perfumes.
	ranked := []uint64{7, 1, 7, 7, 2, 7, 7, 3}
	id := func(l uint64) uint64 { return l }
	if got, want := CapLines(ranked, 10, id), []uint64{7, 1, 7, 7, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("CapLines = %v, want %v", got, want)
	}
	for limit := range 7 {
		full := CapLines(ranked, 10, id)
		if got := CapLines(ranked, limit, id); !slices.Equal(got, full[:min(limit, len(full))]) {
			t.Errorf("CapLines(limit %d) = %v, not the start of %v", limit, got, full)
		}
	}
	if got := CapLines(ranked, -1, id); got == nil || len(got) != 0 {
		t.Errorf("CapLines(limit -1) = %#v, want empty", got)
	}
}

func TestCheaper(t *testing.T) {
	tests := []struct {
		tier, src uint8
		want      bool
	}{
		{1, 2, true}, {1, 4, true}, {3, 4, true},
		{2, 2, false}, {3, 2, false}, // same or dearer tier
		{0, 4, false}, // unknown tier: never a dupe
		{1, 0, false}, // unknown source: no dupes
	}
	for _, tt := range tests {
		if got := Cheaper(tt.tier, tt.src); got != tt.want {
			t.Errorf("Cheaper(%d, %d) = %v, want %v", tt.tier, tt.src, got, tt.want)
		}
	}
}
