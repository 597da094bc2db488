package bundled

import (
	"compress/gzip"
	"io"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

func TestLoadReference(t *testing.T) {
	ref, err := LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ref.AccordColors); got != 90 {
		t.Errorf("accord colours: got %d, want 90", got)
	}
	if got := len(ref.BrandTiers); got != 582 {
		t.Errorf("brand tiers: got %d, want 582", got)
	}
	tiers := []struct {
		brand string
		want  catalog.PriceTier
	}{
		{"Dior", catalog.TierPremium},
		{"dior", catalog.TierPremium},
		{"Dolce&Gabbana", ref.Tier("Dolce & Gabbana")},
		{"Angeline", catalog.TierUnknown},          // listed without a tier
		{"No Such Brand Ltd", catalog.TierUnknown}, // not listed
	}
	for _, tc := range tiers {
		if got := ref.Tier(tc.brand); got != tc.want {
			t.Errorf("Tier(%q) = %q, want %q", tc.brand, got, tc.want)
		}
	}
	if ref.Tier("Dolce&Gabbana") == catalog.TierUnknown {
		t.Error("Dolce&Gabbana should have a tier")
	}
	colors := []struct{ accord, want string }{
		{"amber", "#BC4D10"},
		{"Amber", "#BC4D10"},
		{"champagne", ref.Color("Champagne")},
		{"no such accord", NeutralColor},
	}
	for _, tc := range colors {
		if got := ref.Color(tc.accord); got != tc.want {
			t.Errorf("Color(%q) = %q, want %q", tc.accord, got, tc.want)
		}
	}
	if got := ref.Accord("amber").TextColor; got != "#FFFFFF" {
		t.Errorf("amber text colour %q", got)
	}
}

func TestCatalogueIsGzip(t *testing.T) {
	zr, err := gzip.NewReader(Catalogue())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := io.ReadFull(zr, buf); err != nil {
		t.Fatal(err)
	}
	if buf[0] != '{' {
		t.Errorf("catalogue does not start with a JSON object: %q", buf)
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := parseAccordColors([]byte("accord,color\nx,#000000\n")); err == nil {
		t.Error("missing text_color column accepted")
	}
	if _, err := parseAccordColors([]byte("accord,color,text_color\nx,red,#000000\n")); err == nil {
		t.Error("bad colour accepted")
	}
	if _, err := parseBrandTiers([]byte("brand,tier\nX,cheap\n")); err == nil {
		t.Error("bad tier accepted")
	}
}
