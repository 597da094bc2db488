package search

import (
	"slices"
	"testing"
)

func TestDefaultLexicon(t *testing.T) {
	lx := DefaultLexicon()
	tests := []struct {
		name string
		ok   bool
	}{
		{"weak for", lx.Weak["for"]},
		{"weak perfume", lx.Weak["perfume"]},
		{"content sauvage", !lx.Weak["sauvage"]},
		{"edp", lx.Editions["edp"] == "Eau de Parfum"},
		{"eau de parfum", lx.Editions["eau de parfum"] == "Eau de Parfum"},
		{"parfum", lx.Editions["parfum"] == "Parfum"},
		{"her", lx.Genders["her"] == "feminine"},
		{"homme", lx.Genders["homme"] == "masculine"},
		{"one", slices.Contains(lx.Equivalents["one"], "1")},
		{"1", slices.Contains(lx.Equivalents["1"], "one")},
		{"bleu", slices.Contains(lx.Variants["bleu"], "blue")},
		{"ysl", slices.Contains(lx.Aliases["ysl"], "yves saint laurent")},
		{"d&g folded", slices.Contains(lx.Aliases["d and g"], "dolce and gabbana")},
		{"paco rabanne", slices.Contains(lx.Aliases["paco rabanne"], "rabanne")},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: lexicon entry missing or wrong", tt.name)
		}
	}
}

func TestParseLexiconErrors(t *testing.T) {
	for _, text := range []string{
		"[weak]\nfoo = bar",
		"[edition]\nedp",
		"[nosuch]\nword",
		"word outside any section",
		"[aliases]\nysl =",
	} {
		if _, err := ParseLexicon(text); err == nil {
			t.Errorf("ParseLexicon(%q): want error", text)
		}
	}
}

func TestWithAliasesLeavesOriginal(t *testing.T) {
	lx := DefaultLexicon()
	before := len(lx.Aliases["ysl"])
	cp := lx.WithAliases(map[string][]string{"YSL": {"Saint Laurent"}, "Chanel N°": {"Chanel"}})
	if got := cp.Aliases["ysl"]; len(got) != before+1 || got[before] != "saint laurent" {
		t.Errorf("copy ysl aliases = %q", got)
	}
	if len(cp.Aliases["chanel n"]) != 1 {
		t.Errorf("new alias not folded: %v", cp.Aliases)
	}
	if len(lx.Aliases["ysl"]) != before || lx.Aliases["chanel n"] != nil {
		t.Error("WithAliases changed the original lexicon")
	}
	if lx.WithAliases(nil) != lx {
		t.Error("WithAliases(nil) should return the lexicon itself")
	}
}
