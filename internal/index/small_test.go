package index

import (
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// smallCatalogue is a hand-made catalogue covering the cases the tests
// name: spelling variants of a brand, editions, flankers, a clone at a
// lower tier, a brand of unknown tier.
func smallCatalogue() []catalog.Perfume {
	woody := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "fresh spicy", Strength: 80}, {Name: "amber", Strength: 50}}
	sauvageNotes := catalog.NotePyramid{Top: []string{"Bergamot", "Pepper"}, Middle: []string{"Lavender"}, Base: []string{"Ambroxan", "Cedar"}}
	spring := catalog.Seasons{Winter: 15, Spring: 30, Summer: 35, Fall: 20}
	winter := catalog.Seasons{Winter: 45, Spring: 15, Summer: 5, Fall: 35}
	day, night := catalog.DayNight{Day: 70, Night: 30}, catalog.DayNight{Day: 30, Night: 70}
	p := func(id int64, name, brand string, g catalog.Gender, rc int, tier catalog.PriceTier) catalog.Perfume {
		return catalog.Perfume{ID: id, Name: name, Brand: brand, Gender: g, RatingCount: rc, PriceTier: tier,
			Slug: slug(brand) + "-" + slug(name), BrandSlug: slug(brand), Seasons: spring, DayNight: day}
	}
	ps := []catalog.Perfume{
		p(1, "Sauvage", "Dior", catalog.Masculine, 30000, catalog.TierPremium),
		p(2, "Sauvage Eau de Parfum", "Dior", catalog.Masculine, 14000, catalog.TierPremium),
		p(3, "Sauvage Elixir", "Dior", catalog.Masculine, 18000, catalog.TierPremium),
		p(4, "Eau Sauvage", "Dior", catalog.Masculine, 6000, catalog.TierPremium),
		p(5, "Brit: For Her", "Burberry", catalog.Feminine, 9000, catalog.TierAffordable),
		p(6, "Brit", "Burberry", catalog.Masculine, 4000, catalog.TierAffordable),
		p(7, "Terre d'Hermès", "Hermès", catalog.Masculine, 27000, catalog.TierLuxury),
		p(8, "Twilly", "hermès", catalog.Feminine, 7000, catalog.TierLuxury),
		p(9, "Tobacco Vanille", "Tom Ford", catalog.Unisex, 30000, catalog.TierLuxury),
		p(10, "Light Blue", "Dolce&Gabbana", catalog.Feminine, 35000, catalog.TierPremium),
		p(11, "1 Million", "Rabanne", catalog.Masculine, 23000, catalog.TierAffordable),
		p(12, "Libre", "Yves Saint Laurent", catalog.Feminine, 21000, catalog.TierPremium),
		p(13, "Wild Man", "Budget Brand", catalog.Masculine, 500, catalog.TierBudget),
		p(14, "Mystery", "Indie House", catalog.Unisex, 100, catalog.TierUnknown),
		p(15, "Unrated", "Indie House", catalog.Unisex, 0, catalog.TierUnknown),
		p(16, "Terre d'Hermès Parfum", "Hermès", catalog.Masculine, 8000, catalog.TierLuxury),
	}
	for _, i := range []int{0, 1, 3, 12} {
		ps[i].Accords, ps[i].Notes = clone2(woody), clonePyramid(sauvageNotes)
	}
	ps[1].Concentration = "Eau de Parfum"
	ps[2].Concentration = "Elixir"
	ps[2].Accords = []catalog.AccordStrength{{Name: "Woody", Strength: 100}, {Name: "warm spicy", Strength: 90}}
	ps[2].Notes = catalog.NotePyramid{Top: []string{"Grapefruit"}, Base: []string{"Licorice", "Ambroxan"}}
	ps[8].Accords = []catalog.AccordStrength{{Name: "tobacco", Strength: 100}, {Name: "vanilla", Strength: 90}, {Name: "woody", Strength: 40}}
	ps[8].Notes = catalog.NotePyramid{Unplaced: []string{"Tobacco Leaf", "Vanilla", "Tonka Bean"}}
	ps[8].Seasons, ps[8].DayNight = winter, night
	ps[8].Perfumers = []string{"Olivier Gillotin"}
	ps[11].Perfumers = []string{"Anne Flipo", "Carlos Benaim"}
	ps[11].Accords = []catalog.AccordStrength{{Name: "vanilla", Strength: 100}, {Name: "amber", Strength: 40}}
	ps[11].Notes = catalog.NotePyramid{Top: []string{"Mandarin Orange"}, Middle: []string{"Lavender"}, Base: []string{"Vanilla"}}
	ps[6].Perfumers = []string{"Olivier Gillotin"}
	ps[6].Accords = []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "fresh spicy", Strength: 60}}
	ps[13].Accords = []catalog.AccordStrength{{Name: "vanilla", Strength: 100}}
	ps[13].Notes = catalog.NotePyramid{Base: []string{"vanilla"}}
	ps[13].Seasons, ps[13].DayNight = winter, night
	return ps
}

func slug(s string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			return r
		case r == 'è':
			return 'e'
		}
		return '-'
	}, strings.ToLower(strings.ReplaceAll(s, "&", "-and-"))), "-")
}

func clone2(a []catalog.AccordStrength) []catalog.AccordStrength {
	return append([]catalog.AccordStrength(nil), a...)
}

func clonePyramid(p catalog.NotePyramid) catalog.NotePyramid {
	return catalog.NotePyramid{Top: clone(p.Top), Middle: clone(p.Middle), Base: clone(p.Base), Unplaced: clone(p.Unplaced)}
}

// colors is the accord colour option of the small catalogue.
func colors(accord string) string {
	if accord == "woody" {
		return "#774414"
	}
	return ""
}

func smallIndex() *Index {
	return Build(smallCatalogue(), Options{
		AccordColor: colors,
		Curated:     [][2]string{{"tom-ford-tobacco-vanille", "yves-saint-laurent-libre"}, {"nope", "dior-sauvage"}},
	})
}
