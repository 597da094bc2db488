package importer

import (
	"testing"
)

func TestConcentration(t *testing.T) {
	dior := make(Stems)
	for _, n := range []string{"Sauvage", "Sauvage Eau de Parfum", "Homme Intense"} {
		dior.Add(n)
	}
	tests := []struct {
		name  string
		stems Stems
		want  string
	}{
		{"Sauvage Eau de Parfum", nil, "Eau de Parfum"},
		{"Bleu de Chanel EDP", nil, "Eau de Parfum"},
		{"Light Blue Eau de Toilette", nil, "Eau de Toilette"},
		{"Acqua di Parma Eau de Cologne", nil, "Eau de Cologne"},
		{"Baccarat Rouge 540 Extrait de Parfum", nil, "Extrait de Parfum"},
		{"Sauvage Elixir de Parfum", nil, "Elixir"},
		{"Bleu de Chanel Parfum", nil, "Parfum"},
		{"Aventus Cologne", nil, "Cologne"},
		{"Angels' Share Extrait", nil, "Extrait de Parfum"},
		{"Noir Extreme Parfum Intense", nil, "Parfum"},
		{"Oud Parfum 2019", nil, "Parfum"},
		{"Sauvage Elixir", dior, "Elixir"},
		{"Sauvage Elixir", nil, ""},
		{"Aromatics Elixir", dior, ""},
		{"Le Parfum", nil, ""},
		{"Mon Parfum", nil, ""},
		{"Le Premier Parfum", nil, ""},
		{"Lettre de Cologne", nil, ""},
		{"Parfum Cologne", nil, ""},
		{"L'Eau d'Issey Parfum", nil, "Parfum"},
		{"Eau d'Parfum", nil, ""},
		{"Parfum", nil, ""},
		{"Terre d'Hermès Eau Intense", nil, ""},
		{"Colonia", nil, ""},
		{"Perfume Oil", nil, ""},
		{"Eau Fraîche", nil, ""},
		{"Parfums de Marly", nil, ""},
		{"Bedtime EDTA", nil, ""},
	}
	for _, tc := range tests {
		if got := Concentration(tc.name, tc.stems); got != tc.want {
			t.Errorf("Concentration(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStemsAdd(t *testing.T) {
	s := make(Stems)
	s.Add("Chanel No 5  Eau de Parfum")
	s.Add("Fahrenheit (EDT)")
	for _, want := range []string{"chanel no 5 eau de parfum", "chanel no 5", "fahrenheit (edt)", "fahrenheit ("} {
		if !s[want] {
			t.Errorf("stem %q missing from %v", want, s)
		}
	}
}

func TestNormStem(t *testing.T) {
	tests := map[string]string{
		"Terre d’Hermès – ":  "terre d'hermes",
		"  Sauvage  Elixir ": "sauvage elixir",
		"Ô de Lancôme:":      "o de lancome",
	}
	for in, want := range tests {
		if got := normStem(in); got != want {
			t.Errorf("normStem(%q) = %q, want %q", in, got, want)
		}
	}
}
