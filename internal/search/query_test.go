package search

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseQuery(t *testing.T) {
	lx := DefaultLexicon()
	type tok struct {
		text   string
		kind   TokenKind
		typos  int
		prefix bool
	}
	tests := []struct {
		q       string
		want    []tok
		edition string
		gender  string
	}{
		{"", nil, "", ""},
		{"  !!! ", nil, "", ""},
		{"Dior Sauvage", []tok{{"dior", Content, 0, false}, {"sauvage", Content, 1, true}}, "", ""},
		{"Brit: For Her", []tok{{"brit", Content, 0, false}, {"for", Weak, 0, false}, {"her", Weak, 0, true}}, "", "feminine"},
		{"sauvage EDP", []tok{{"sauvage", Content, 1, false}, {"edp", Edition, 0, true}}, "Eau de Parfum", ""},
		{"bleu de chanel eau de parfum", []tok{{"bleu", Content, 0, false}, {"de", Weak, 0, false}, {"chanel", Content, 1, false},
			{"eau", Edition, 0, false}, {"de", Edition, 0, false}, {"parfum", Edition, 0, true}}, "Eau de Parfum", ""},
		{"bleu de chanel parfum", []tok{{"bleu", Content, 0, false}, {"de", Weak, 0, false}, {"chanel", Content, 1, false},
			{"parfum", Edition, 0, true}}, "Parfum", ""},
		{"for men", []tok{{"for", Content, 0, false}, {"men", Content, 0, true}}, "", "masculine"},
		{"baccarat rougee extraordinaire", []tok{{"baccarat", Content, 1, false}, {"rougee", Content, 1, false}, {"extraordinaire", Content, 2, true}}, "", ""},
		{"212 VIP", []tok{{"212", Content, 0, false}, {"vip", Content, 0, true}}, "", ""},
		{"Hermès", []tok{{"hermes", Content, 1, true}}, "", ""},
		{"D&G", []tok{{"d", Weak, 0, false}, {"and", Weak, 0, false}, {"g", Content, 0, true}}, "", ""},
	}
	for _, tt := range tests {
		q := ParseQuery(tt.q, lx)
		var got []tok
		for _, x := range q.Tokens {
			got = append(got, tok{x.Text, x.Kind, x.Typos, x.Prefix})
		}
		if !slices.Equal(got, tt.want) || q.Edition != tt.edition || q.Gender != tt.gender {
			t.Errorf("ParseQuery(%q) = %+v edition %q gender %q\nwant %+v edition %q gender %q",
				tt.q, got, q.Edition, q.Gender, tt.want, tt.edition, tt.gender)
		}
	}
}

func TestParseQueryAlternatives(t *testing.T) {
	lx := DefaultLexicon()
	tests := []struct {
		q          string
		same, alts []string
	}{
		{"one", []string{"1"}, nil},
		{"no5", []string{"n5", "nr5", "num5", "number5"}, nil},
		{"bleu", nil, []string{"blue"}},
		{"sauvage", nil, nil},
	}
	for _, tt := range tests {
		tok := ParseQuery(tt.q, lx).Tokens[0]
		if !sameSet(tok.Same, tt.same) || !sameSet(tok.Alts, tt.alts) {
			t.Errorf("ParseQuery(%q): same %q alts %q, want %q %q", tt.q, tok.Same, tok.Alts, tt.same, tt.alts)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestParseQueryCapsTokens(t *testing.T) {
	q := ParseQuery(strings.Repeat("word ", 100), DefaultLexicon())
	if len(q.Tokens) != MaxQueryTokens || !q.Tokens[MaxQueryTokens-1].Prefix {
		t.Errorf("got %d tokens", len(q.Tokens))
	}
}

func TestMask(t *testing.T) {
	q := ParseQuery("sauvage for men edp", DefaultLexicon())
	if got := q.Mask(Content); got != 0b0001 {
		t.Errorf("content mask %04b", got)
	}
	if got := q.Mask(Weak, Edition); got != 0b1110 {
		t.Errorf("weak mask %04b", got)
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"dior sauvage", "brit: for her", "no5", "eau de parfum", "D&G", "\xff\xfe", "one two three four"} {
		f.Add(s)
	}
	lx := DefaultLexicon()
	f.Fuzz(func(t *testing.T, s string) {
		q := ParseQuery(s, lx)
		if len(q.Tokens) > MaxQueryTokens {
			t.Fatalf("%d tokens", len(q.Tokens))
		}
		content := 0
		for i, tok := range q.Tokens {
			if tok.Text == "" || strings.Contains(tok.Text, " ") || !utf8.ValidString(tok.Text) {
				t.Fatalf("bad token %q", tok.Text)
			}
			if tok.Prefix != (i == len(q.Tokens)-1) {
				t.Fatalf("prefix flag on token %d of %d", i, len(q.Tokens))
			}
			if tok.Typos < 0 || tok.Typos > 2 || (tok.Kind != Content && tok.Typos != 0) {
				t.Fatalf("typos %d for kind %d", tok.Typos, tok.Kind)
			}
			if tok.Kind == Content {
				content++
			}
		}
		if len(q.Tokens) > 0 && content == 0 {
			t.Fatal("a query with words must have a content word")
		}
	})
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"Hermès", "a&b", "", "ß", "\xff", "  L'Homme  Idéal ", "N°5", "Œ&&&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Fold(s)
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
			t.Fatalf("Fold(%q) = %q has stray spaces", s, got)
		}
		if again := Fold(got); again != got {
			t.Fatalf("Fold not idempotent: %q → %q → %q", s, got, again)
		}
	})
}
