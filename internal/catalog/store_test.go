package catalog

import "testing"

func TestPickSlug(t *testing.T) {
	taken := map[string]bool{}
	pick := func(id int64, year int, base string) string {
		return PickSlug(Perfume{ID: id, Year: year, Slug: base}, taken)
	}
	steps := []struct {
		id   int64
		year int
		base string
		want string
	}{
		{1, 1988, "davidoff-cool-water", "davidoff-cool-water"},
		{2, 1996, "davidoff-cool-water", "davidoff-cool-water-1996"},
		{3, 1996, "davidoff-cool-water", "davidoff-cool-water-3"},
		{4, 0, "davidoff-cool-water", "davidoff-cool-water-4"},
		// A perfume whose own base is another's fallback.
		{5, 0, "davidoff-cool-water-5", "davidoff-cool-water-5"},
		{5, 0, "davidoff-cool-water", "davidoff-cool-water-5-2"},
	}
	for _, s := range steps {
		if got := pick(s.id, s.year, s.base); got != s.want {
			t.Errorf("PickSlug(%d, %d, %q) = %q, want %q", s.id, s.year, s.base, got, s.want)
		}
	}
	if !taken["davidoff-cool-water-5-2"] {
		t.Error("picked slug not marked taken")
	}
}

func TestPriceTier(t *testing.T) {
	if !(TierBudget.Rank() < TierAffordable.Rank() && TierAffordable.Rank() < TierPremium.Rank() &&
		TierPremium.Rank() < TierLuxury.Rank()) || TierUnknown.Known() || ParsePriceTier("cheap") != TierUnknown {
		t.Error("tier order or parsing broken")
	}
}
