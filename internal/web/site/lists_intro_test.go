package site

import "testing"

// The sentence above a filtered page's cards agrees with its number and
// says when the filters narrowed the list.
func TestFilteredPageIntroduction(t *testing.T) {
	lp := filteredPage{intro: "by Chanel"}
	for _, tt := range []struct {
		total    int
		filtered bool
		want     string
	}{
		{139, false, "139 perfumes by Chanel, most rated first."},
		{1, false, "1 perfume by Chanel, most rated first."},
		{1200, true, "1,200 perfumes by Chanel match the filters, most rated first."},
		{1, true, "1 perfume by Chanel matches the filters, most rated first."},
		{0, true, "No perfume by Chanel matches the filters."},
	} {
		if got := lp.introduce(tt.total, tt.filtered, "most rated first"); got != tt.want {
			t.Errorf("introduce(%d, %v) = %q, want %q", tt.total, tt.filtered, got, tt.want)
		}
	}
	// A page showing no list (its filters could not be read) names no order.
	if got, want := lp.introduce(139, false, ""), "139 perfumes by Chanel."; got != want {
		t.Errorf("introduce without an order = %q, want %q", got, want)
	}
}
