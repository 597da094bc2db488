// Package catalog holds the domain of the fragrance data service: perfumes,
// brands, notes, perfumers and accords, the error kinds every layer shares,
// and the contracts the storage backends meet. It imports nothing of the
// project and only the standard library.
package catalog

// Gender is the audience a perfume is marketed to.
type Gender string

// The genders used by the catalogue and the match filter.
const (
	Masculine Gender = "masculine"
	Feminine  Gender = "feminine"
	Unisex    Gender = "unisex"
)

// Valid reports whether g is one of the three known genders.
func (g Gender) Valid() bool {
	return g == Masculine || g == Feminine || g == Unisex
}

// PriceTier is the typical price level of a brand's full-size bottle.
// The zero value means the tier is unknown.
type PriceTier string

// The price tiers, cheapest first.
const (
	TierUnknown    PriceTier = ""
	TierBudget     PriceTier = "budget"
	TierAffordable PriceTier = "affordable"
	TierPremium    PriceTier = "premium"
	TierLuxury     PriceTier = "luxury"
)

// Rank orders tiers: budget 1 < affordable 2 < premium 3 < luxury 4.
// An unknown tier ranks 0, which is below nothing: callers that compare
// tiers must check Known first.
func (t PriceTier) Rank() int {
	switch t {
	case TierBudget:
		return 1
	case TierAffordable:
		return 2
	case TierPremium:
		return 3
	case TierLuxury:
		return 4
	}
	return 0
}

// Known reports whether t is one of the four named tiers.
func (t PriceTier) Known() bool { return t.Rank() > 0 }

// ParsePriceTier maps a tier name to a PriceTier; anything else is unknown.
func ParsePriceTier(s string) PriceTier {
	t := PriceTier(s)
	if t.Known() {
		return t
	}
	return TierUnknown
}

// AccordStrength is one main accord of a perfume with its relative
// strength on a 0–100 scale (the strongest accord of a perfume is 100).
type AccordStrength struct {
	Name     string  `json:"name"`
	Strength float64 `json:"strength"`
}

// NotePyramid lists a perfume's notes by layer. Unplaced holds notes the
// source gives without a pyramid; a note may appear in several layers.
type NotePyramid struct {
	Top      []string `json:"top,omitempty"`
	Middle   []string `json:"middle,omitempty"`
	Base     []string `json:"base,omitempty"`
	Unplaced []string `json:"unplaced,omitempty"`
}

// Empty reports whether the pyramid has no notes at all.
func (p NotePyramid) Empty() bool {
	return len(p.Top)+len(p.Middle)+len(p.Base)+len(p.Unplaced) == 0
}

// Seasons holds the share of season votes, each 0–100.
type Seasons struct {
	Winter float64 `json:"winter"`
	Spring float64 `json:"spring"`
	Summer float64 `json:"summer"`
	Fall   float64 `json:"fall"`
}

// DayNight holds the share of day and night votes, each 0–100.
type DayNight struct {
	Day   float64 `json:"day"`
	Night float64 `json:"night"`
}

// Perfume is one catalogue record as stored. Derived views (list items,
// details, similarity) are built from it by the index and the API.
type Perfume struct {
	// ID is the numeric id: the source's id (Fragrantica's), used as the
	// upsert key of imports and in image URLs.
	ID int64 `json:"id"`
	// Slug is the stable public identifier; assigned once, never recomputed.
	Slug      string `json:"slug"`
	Name      string `json:"name"`
	Brand     string `json:"brand"`
	BrandSlug string `json:"brandSlug"`
	// Year is the launch year; 0 when unknown.
	Year   int    `json:"year,omitempty"`
	Gender Gender `json:"gender"`
	// Rating is the mean rating on 1–5; 0 when unknown.
	Rating      float64 `json:"rating,omitempty"`
	RatingCount int     `json:"ratingCount"`
	// Longevity (1–5) and Sillage (1–4) are mean votes; 0 when unknown.
	Longevity     float64          `json:"longevity,omitempty"`
	Sillage       float64          `json:"sillage,omitempty"`
	Concentration string           `json:"concentration,omitempty"`
	Description   string           `json:"description,omitempty"`
	Family        string           `json:"family,omitempty"`
	Accords       []AccordStrength `json:"accords"`
	Notes         NotePyramid      `json:"notes"`
	Perfumers     []string         `json:"perfumers,omitempty"`
	Seasons       Seasons          `json:"seasons"`
	DayNight      DayNight         `json:"dayNight"`
	PriceTier     PriceTier        `json:"priceTier,omitempty"`
	// Seq is the change sequence of the stored record (see Change): set by
	// the store when it reads a perfume, ignored by imports and left out of
	// the record's JSON. Two reads with the same Seq hold the same record.
	Seq int64 `json:"-"`
}
