package view

import "github.com/fragrance-data/fragrance/internal/catalog"

// The shapes below follow the seed and the API contract: field names,
// order and types are the wire format (fields beyond the seed are
// additive); a pointer is null when the value is unknown.

// Accord is an accord of a perfume with its strength (0–100) and colour.
type Accord struct {
	Name     string  `json:"name"`
	Strength float64 `json:"strength"`
	Color    string  `json:"color"`
}

// Note is a note of a pyramid layer with its derived intensity (see
// NoteIntensity).
type Note struct {
	Name      string  `json:"name"`
	Intensity float64 `json:"intensity"`
}

// Notes is a perfume's note pyramid; Unplaced holds the notes the source
// gives without a layer.
type Notes struct {
	Top      []Note `json:"top"`
	Middle   []Note `json:"middle"`
	Base     []Note `json:"base"`
	Unplaced []Note `json:"unplaced"`
}

// PerfumerRef names a perfumer and the slug of their page.
type PerfumerRef struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// Perfume is a perfume as a list item (data[] of /api/perfumes and of
// perfumer pages).
type Perfume struct {
	ID                        string   `json:"id"`
	Slug                      string   `json:"slug"`
	Name                      string   `json:"name"`
	Brand                     string   `json:"brand"`
	Year                      *int     `json:"year"`
	Rating                    *float64 `json:"rating"`
	RatingCount               int      `json:"ratingCount"`
	Concentration             *string  `json:"concentration"`
	Gender                    string   `json:"gender"`
	PriceTier                 *string  `json:"priceTier"`
	Image                     string   `json:"image"`
	ImageTransparent          string   `json:"imageTransparent"`
	ImageTransparentAvailable bool     `json:"imageTransparentAvailable"`
	BuyURL                    string   `json:"buyUrl"`
	Accords                   []Accord `json:"accords"`
}

// Detail is a perfume in full (GET /api/perfumes/{slug}): a flat object,
// no data wrapper.
type Detail struct {
	Perfume
	BrandSlug       string           `json:"brandSlug"`
	Description     string           `json:"description"`
	Family          *string          `json:"family"`
	Longevity       *float64         `json:"longevity"`
	Sillage         *float64         `json:"sillage"`
	Notes           Notes            `json:"notes"`
	Seasons         catalog.Seasons  `json:"seasons"`
	DayNight        catalog.DayNight `json:"dayNight"`
	SimilarPerfumes []Similar        `json:"similarPerfumes"`
	Perfumers       []PerfumerRef    `json:"perfumers"`
	SeasonRanking   []Ranked         `json:"seasonRanking"`
	TimeRanking     []Ranked         `json:"timeRanking"`
	Popularity      Popularity       `json:"popularity"`
}

// Ranked is one season or time of day with its share of votes (0–100).
type Ranked struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// Popularity places a perfume by its number of ratings: Score is the
// percentile (0–100), Rank 1 is the most rated.
type Popularity struct {
	Score       float64 `json:"score"`
	RatingCount int     `json:"ratingCount"`
	Rank        int     `json:"rank"`
}

// Similar is a perfume similar to another (/similar's data and a detail's
// similarPerfumes), with what the two share.
type Similar struct {
	ID                        string   `json:"id"`
	Slug                      string   `json:"slug"`
	Name                      string   `json:"name"`
	Brand                     string   `json:"brand"`
	MatchScore                float64  `json:"matchScore"`
	Image                     string   `json:"image"`
	ImageTransparent          string   `json:"imageTransparent"`
	ImageTransparentAvailable bool     `json:"imageTransparentAvailable"`
	SharedAccords             []Accord `json:"sharedAccords"`
	SharedNotes               []string `json:"sharedNotes"`
	Accords                   []Accord `json:"accords"`
}

// Dupe is a cheaper alternative: a similar perfume of a lower price tier.
type Dupe struct {
	Similar
	PriceTier string   `json:"priceTier"`
	Rating    *float64 `json:"rating"`
}

// SourceRef names the perfume a similar list is about.
type SourceRef struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Brand string `json:"brand"`
}

// DupeSource is the perfume a dupes list is about, with what a client
// shows beside its alternatives.
type DupeSource struct {
	SourceRef
	Image            string   `json:"image"`
	ImageTransparent string   `json:"imageTransparent"`
	Rating           *float64 `json:"rating"`
	PriceTier        *string  `json:"priceTier"`
}

// Match is a perfume that matches a profile (/api/perfumes/match).
type Match struct {
	ID          string   `json:"id"`
	Slug        string   `json:"slug"`
	Name        string   `json:"name"`
	Brand       string   `json:"brand"`
	MatchScore  float64  `json:"matchScore"`
	Rating      *float64 `json:"rating"`
	RatingCount int      `json:"ratingCount"`
	Image       string   `json:"image"`
	Accords     []Accord `json:"accords"`
}

// Count is a brand, note, perfumer or accord with its number of perfumes;
// Slug for brands and perfumers, Color for accords.
type Count struct {
	Name  string `json:"name"`
	Slug  string `json:"slug,omitempty"`
	Count int    `json:"count"`
	Color string `json:"color,omitempty"`
}

// Page is one page of perfumes.
type Page struct {
	Data  []Perfume `json:"data"`
	Total int       `json:"total"`
	Page  int       `json:"page"`
	Pages int       `json:"pages"`
	Limit int       `json:"limit"`
}

// SimilarList is GET /api/perfumes/{slug}/similar.
type SimilarList struct {
	Source SourceRef `json:"source"`
	Data   []Similar `json:"data"`
	Total  int       `json:"total"`
	Limit  int       `json:"limit"`
}

// DupeList is GET /api/perfumes/{slug}/dupes.
type DupeList struct {
	Source DupeSource `json:"source"`
	Data   []Dupe     `json:"data"`
	Total  int        `json:"total"`
	Limit  int        `json:"limit"`
}

// MatchFilters echoes the filters a match applied, with canonical names.
type MatchFilters struct {
	Accords         []string           `json:"accords"`
	AccordStrengths map[string]float64 `json:"accordStrengths"`
	Notes           []string           `json:"notes"`
	Gender          *string            `json:"gender"`
	Season          *string            `json:"season"`
	Time            *string            `json:"time"`
	// DescribedFilters is set for a match with a description (q), an
	// exclusion or a sort; its members appear only then.
	*DescribedFilters
}

// DescribedFilters are the filters only a described match echoes.
type DescribedFilters struct {
	// Excluded names the accords and notes kept out.
	Excluded []string `json:"excluded"`
	// Brand is the brand the description named.
	Brand *string `json:"brand"`
	// Ignored lists the words of q not understood.
	Ignored []string `json:"ignored"`
}

// MatchList is GET /api/perfumes/match.
type MatchList struct {
	Data    []Match      `json:"data"`
	Filters MatchFilters `json:"filters"`
	Total   int          `json:"total"`
	Page    int          `json:"page"`
	Pages   int          `json:"pages"`
	Limit   int          `json:"limit"`
}

// CountList is a list of brands or perfumers.
type CountList struct {
	Data  []Count `json:"data"`
	Total int     `json:"total"`
}

// LimitedCountList is a list of notes or accords, with the limit applied
// (absent when there is none).
type LimitedCountList struct {
	Data  []Count `json:"data"`
	Total int     `json:"total"`
	Limit *int    `json:"limit,omitempty"`
}

// Perfumer is GET /api/perfumers/{slug}: a perfumer and a page of their
// perfumes.
type Perfumer struct {
	Name     string `json:"name"`
	Slug     string `json:"slug"`
	Count    int    `json:"count"`
	Perfumes Page   `json:"perfumes"`
}

// SiteSearchItem is a perfume as the keyless site search (/api/search)
// answers it: what a search box shows.
type SiteSearchItem struct {
	Name             string `json:"name"`
	Brand            string `json:"brand"`
	Slug             string `json:"slug"`
	Image            string `json:"image"`
	ImageTransparent string `json:"imageTransparent"`
}

// SiteSearch is GET /api/search.
type SiteSearch struct {
	Perfumes []SiteSearchItem `json:"perfumes"`
}

// Recommendation is a perfume recommended for a taste
// (/api/perfumes/recommend): a match item with its transparent image and
// the reasons, what it shares with which liked perfume.
type Recommendation struct {
	ID               string   `json:"id"`
	Slug             string   `json:"slug"`
	Name             string   `json:"name"`
	Brand            string   `json:"brand"`
	MatchScore       float64  `json:"matchScore"`
	Rating           *float64 `json:"rating"`
	RatingCount      int      `json:"ratingCount"`
	Image            string   `json:"image"`
	ImageTransparent string   `json:"imageTransparent"`
	Accords          []Accord `json:"accords"`
	Reasons          []Reason `json:"reasons"`
}

// Reason is what a recommendation shares with one liked perfume.
type Reason struct {
	Perfume SourceRef `json:"perfume"`
	Accords []Accord  `json:"accords"`
	Notes   []string  `json:"notes"`
}

// RecommendList is GET /api/perfumes/recommend.
type RecommendList struct {
	Source []SourceRef      `json:"source"`
	Data   []Recommendation `json:"data"`
	Total  int              `json:"total"`
	Page   int              `json:"page"`
	Pages  int              `json:"pages"`
	Limit  int              `json:"limit"`
}
