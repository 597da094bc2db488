package search

import "testing"

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hermès", "hermes"},
		{"Brit: For Her", "brit for her"},
		{"Dolce&Gabbana", "dolce and gabbana"},
		{"D & G", "d and g"},
		{"  L'Homme  Idéal ", "l homme ideal"},
		{"Œillet Sauvage", "oeillet sauvage"},
		{"Straße", "strasse"},
		{"No. 5", "no 5"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Dior", "dior"},
		{"Sauvage Eau de Parfum", "sauvage-eau-de-parfum"},
		{"Dolce&Gabbana", "dolce-and-gabbana"},
		{"Terre d'Hermès", "terre-d-hermes"},
		{"212 VIP Men", "212-vip-men"},
		{"Chanel No 5", "chanel-no-5"},
		{"香水", ""},
		{"--Ä--", "a"},
	}
	for _, tt := range tests {
		if got := Slugify(tt.in); got != tt.want {
			t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Hermès", "a&b", "", "ß", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slug := Slugify(s)
		for _, r := range slug {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Fatalf("Slugify(%q) = %q has %q", s, slug, r)
			}
		}
		if Slugify(slug) != slug {
			t.Fatalf("Slugify not idempotent on %q", slug)
		}
	})
}
