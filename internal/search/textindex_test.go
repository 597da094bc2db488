package search

import (
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// smallText indexes a few documents given as "name | brand".
func smallText(t *testing.T, docs ...string) *TextIndex {
	t.Helper()
	b := NewTextIndexBuilder(DefaultLexicon(), 2, len(docs))
	for _, d := range docs {
		name, brand, _ := strings.Cut(d, "|")
		b.Add(strings.Fields(Fold(name)), strings.Fields(Fold(brand)), nil)
	}
	return b.Build()
}

// found is a Match with its NameCover, as a test compares them.
type found struct {
	Match
	FullName, ExactName bool
}

func search(ix *TextIndex, q string) map[uint32]found {
	out := map[uint32]found{}
	ix.Search(ParseQuery(q, DefaultLexicon()), nil, func(m *Match) {
		full, exact := m.NameCover()
		out[m.Doc] = found{*m, full, exact}
	})
	return out
}

func TestTextIndexMatching(t *testing.T) {
	ix := smallText(t,
		"Sauvage | Dior",               // 0
		"Sauvage Elixir | Dior",        // 1
		"Eau Sauvage | Dior",           // 2
		"Tobacco Vanille | Tom Ford",   // 3
		"Light Blue | Dolce&Gabbana",   // 4
		"Le Male | Jean Paul Gaultier", // 5
		"1 Million | Rabanne",          // 6
		"Tobaccovanilla | Somebody",    // 7
		"Savage | Other",               // 8
		"Sauvage Very Cool | Dior",     // 9
	)
	tests := []struct {
		q       string
		doc     uint32
		quality int
		full    bool
		exact   bool
	}{
		{"sauvage", 0, QualityExact, true, true},
		{"sauvage", 1, QualityExact, true, false}, // "elixir" is an edition word
		{"sauvage", 2, QualityExact, true, false},
		{"sauvage", 9, QualityExact, false, false},
		{"dior sauvage", 0, 2 * QualityExact, true, true},
		{"SAUVAGE DIOR", 0, 2 * QualityExact, true, true},
		{"tobacco van", 3, QualityExact + QualityPrefix, false, false},
		{"tobaccovanille", 3, QualityExact, true, true},
		{"tobacco vanilla", 7, 2 * QualityExact, true, true},
		{"lightblue", 4, QualityExact, true, true},
		{"dolce gabbana", 4, 2 * QualityExact, false, false},
		{"gautier", 5, QualityTypo1, false, false},
		{"one million", 6, 2 * QualityExact, true, true},
		{"savage", 0, QualityTypo1, true, true},
		{"savage", 8, QualityExact, true, true},
		{"suavage", 0, QualityTypo1, true, true},
	}
	for _, tt := range tests {
		m, ok := search(ix, tt.q)[tt.doc]
		if !ok {
			t.Errorf("%q: document %d not found", tt.q, tt.doc)
			continue
		}
		if m.Quality != tt.quality || m.FullName != tt.full || m.ExactName != tt.exact {
			t.Errorf("%q doc %d: quality %d full %v exact %v, want %d %v %v",
				tt.q, tt.doc, m.Quality, m.FullName, m.ExactName, tt.quality, tt.full, tt.exact)
		}
	}
}

func TestTextIndexMisses(t *testing.T) {
	ix := smallText(t, "Sauvage | Dior", "Aventus | Creed", "Rose | Brand")
	tests := []struct {
		q    string
		docs []uint32
	}{
		{"xyzzy", nil},
		{"for men", nil},         // weak words alone are searched as content
		{"sau", []uint32{0}},     // prefix
		{"s", nil},               // too short to be a prefix
		{"ros", []uint32{2}},     // prefix
		{"rise", nil},            // 4 letters: no typo allowed
		{"avemtus", []uint32{1}}, // 7 letters: one typo
		{"avemtys", nil},         // two typos need 9 letters
		{"sauvage perfume", []uint32{0}},
	}
	for _, tt := range tests {
		var got []uint32
		for doc := range search(ix, tt.q) {
			got = append(got, doc)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.docs) {
			t.Errorf("%q found %v, want %v", tt.q, got, tt.docs)
		}
	}
}

func TestTextIndexMasksAndKeep(t *testing.T) {
	ix := smallText(t, "Sauvage | Dior", "Sauvage | Other", "Homme | Dior")
	q := ParseQuery("dior sauvage for men", DefaultLexicon())
	got := map[uint32]uint32{}
	ix.Search(q, func(doc uint32) bool { return doc != 1 }, func(m *Match) { got[m.Doc] = m.Mask })
	if len(got) != 2 || got[0] != 0b0011 || got[2] != 0b0001 {
		t.Errorf("masks %v", got)
	}
	// Weak words alone never start a result.
	ix.Search(ParseQuery("dior for", DefaultLexicon()), nil, func(m *Match) {
		if m.Mask&1 == 0 {
			t.Errorf("document %d found by a weak word only", m.Doc)
		}
	})
}

// TestSearchVisitsDocumentsAscending: both passes of SearchTwice meet
// every document found once, in ascending order, however the terms that
// found them are ordered (a later term finds documents below an earlier
// one's), across the words of the found bitmap, and again on the next
// search with the pooled scratch.
func TestSearchVisitsDocumentsAscending(t *testing.T) {
	var docs []string
	for i := range 300 {
		switch {
		case i%7 == 0:
			docs = append(docs, "Rose Noir | Brand")
		case i%5 == 0:
			docs = append(docs, "Roseraie | Brand") // "ros" begins it: a prefix hit, ranked after exact ones
		case i%3 == 0:
			docs = append(docs, "Noir Extreme | Other")
		default:
			docs = append(docs, "Aventus | Creed")
		}
	}
	ix := smallText(t, docs...)
	for _, q := range []string{"noir ros", "rose noir", "noir", "creed ros", "zzz"} {
		for range 2 {
			var scanned, visited []uint32
			ix.SearchTwice(ParseQuery(q, DefaultLexicon()), nil,
				func(m *Match) { scanned = append(scanned, m.Doc) },
				func(m *Match) { visited = append(visited, m.Doc) })
			want := slices.Sorted(maps.Keys(search(ix, q)))
			if !slices.Equal(scanned, want) || !slices.Equal(visited, want) {
				t.Fatalf("%q: scanned %v, visited %v; want %v", q, scanned, visited, want)
			}
			if q != "zzz" && len(want) < 100 {
				t.Fatalf("%q found only %d documents", q, len(want))
			}
		}
	}
}

func TestTextIndexConcurrent(t *testing.T) {
	ix := smallText(t, "Sauvage | Dior", "Aventus | Creed")
	done := make(chan bool)
	for range 4 {
		go func() {
			for range 200 {
				if len(search(ix, "sauvage dior")) != 1 {
					t.Error("wrong result under concurrency")
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}

// TestTextIndexNameCover covers what makes a name matched fully or
// exactly, and which words count towards quality.
func TestTextIndexNameCover(t *testing.T) {
	b := NewTextIndexBuilder(DefaultLexicon(), 2, 6)
	add := func(name, brand string, extra ...string) uint32 {
		return b.Add(strings.Fields(Fold(name)), strings.Fields(Fold(brand)), extra)
	}
	gio := add("Acqua di Gio", "Giorgio Armani")
	gio95 := add("Acqua di Gio (1995)", "Giorgio Armani")
	dolce := add("Dolce", "Dolce&Gabbana")
	paco := add("Paco", "Rabanne", "pacorabanne", "paco")
	million := add("1 Million", "Rabanne", "pacorabanne", "paco")
	giordani := add("Mister Giordani Aqua", "Oriflame")
	ix := b.Build()
	tests := []struct {
		q           string
		doc         uint32
		quality     int
		full, exact bool
		why         string
	}{
		{"acqua di gio", gio, 2 * QualityExact, true, true, "di is weak: quality counts content words"},
		{"acqua di gio", gio95, 2 * QualityExact, true, false, "a year need not be typed"},
		{"aqua di gio", gio, QualityVariant + QualityExact, true, true, "an other spelling"},
		{"aqua di gio", giordani, QualityExact + QualityPrefix, false, false, "gio only begins giordani"},
		{"dolce gabbana", dolce, 2 * QualityExact, false, false, "a name of brand words only"},
		{"paco rabanne", paco, 2 * QualityExact, false, false, "an alias word is the brand's"},
		{"paco rabanne 1 million", million, 4 * QualityExact, true, true, "brand words need not be typed"},
		{"acqua di gio perfume", gio, 2 * QualityExact, true, true, "a stray weak word adds nothing"},
	}
	for _, tt := range tests {
		m, ok := search(ix, tt.q)[tt.doc]
		if !ok {
			t.Errorf("%q: document %d not found (%s)", tt.q, tt.doc, tt.why)
			continue
		}
		if m.Quality != tt.quality || m.FullName != tt.full || m.ExactName != tt.exact {
			t.Errorf("%q doc %d: quality %d full %v exact %v, want %d %v %v (%s)",
				tt.q, tt.doc, m.Quality, m.FullName, m.ExactName, tt.quality, tt.full, tt.exact, tt.why)
		}
	}
}

func TestIsYear(t *testing.T) {
	for w, want := range map[string]bool{"1995": true, "2018": true, "212": false, "4711": false, "1861": false, "20ab": false, "20189": false} {
		if isYear(w) != want {
			t.Errorf("isYear(%q) = %v", w, !want)
		}
	}
}

// TestTextIndexLastWordIsANewWord: the last word, being typed, does not
// match again a word another query word names ("go" of "good girl go").
func TestTextIndexLastWordIsANewWord(t *testing.T) {
	ix := smallText(t, "Good Girl | Carolina Herrera", "Good Girl Gone Bad | By Kilian", "Goodgirl Gold | Other")
	got := search(ix, "good girl go")
	if got[0].Mask != 0b011 || got[1].Mask != 0b111 {
		t.Errorf("masks: Good Girl %03b, Good Girl Gone Bad %03b", got[0].Mask, got[1].Mask)
	}
	if got[2].Mask != 0b111 { // "goodgirl" joins the first two words, "gold" is new
		t.Errorf("Goodgirl Gold: %03b", got[2].Mask)
	}
	if m := search(ix, "go")[0]; m.Mask != 1 { // alone, "go" begins "good" as usual
		t.Errorf("go: %+v", m)
	}
}

// TestLowerBoundMatchesSearchStrings: the vocabulary's search by keys
// finds what a binary search of the strings finds, for every term, its
// prefixes and successors, and random words, among terms that share their
// first eight bytes in runs longer than the keys' linear scan.
func TestLowerBoundMatchesSearchStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	alphabet := []string{"a", "b", "e", "o", "s", "z", "é", "ø", "1"}
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	var docs []string
	for range 400 {
		docs = append(docs, word(1+r.IntN(12))+" "+word(1+r.IntN(5))+" | "+word(3+r.IntN(6)))
	}
	// Runs of terms with the same first eight bytes: "aaaaaaaa…".
	for i := range 40 {
		docs = append(docs, "aaaaaaaa"+word(1+i%6)+" | bbbbbbbbbb"+word(1+i%3))
	}
	ix := smallText(t, docs...)
	if len(ix.terms) < 500 {
		t.Fatalf("only %d terms", len(ix.terms))
	}
	check := func(w string) {
		t.Helper()
		if got, want := ix.lowerBound(w), sort.SearchStrings(ix.terms, w); got != want {
			t.Fatalf("lowerBound(%q) = %d, want %d", w, got, want)
		}
	}
	for _, w := range ix.terms {
		check(w)
		for n := range len(w) {
			check(w[:n])
		}
		check(w + "\x00")
		check(w + "a")
		check(w[:len(w)-1] + string([]byte{w[len(w)-1] + 1}))
	}
	for range 20000 {
		check(word(r.IntN(14)))
	}
	check("")
	check("\xff\xff\xff\xff\xff\xff\xff\xff\xff")
	check("aaaaaaaa")
	check("aaaaaaaa\xff")
}

// TestNameCoverBound: the bound that lets nameCover skip a name (more
// words to cover than the matched terms' covers add up to) never skips
// one the walk finds matched in full or exactly. Names of few short
// words repeat words and make joins that are other names' words
// ("ab c" joins to "abc"); queries take words of names, their joins and
// their splits, brands and weak words.
func TestNameCoverBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	syllables := []string{"ab", "c", "abc", "ca", "b", "bca", "de", "the", "eau", "de", "rose", "ro", "se", "rosé", "2018"}
	word := func() string { return syllables[r.IntN(len(syllables))] }
	var docs []string
	for range 3000 {
		n := 1 + r.IntN(5)
		var name []string
		for range n {
			name = append(name, word())
		}
		docs = append(docs, strings.Join(name, " ")+" | "+word()+" "+word())
	}
	ix := smallText(t, docs...)
	skipped, full, exact := 0, 0, 0
	for i := range 4000 {
		var q []string
		for range 1 + r.IntN(4) {
			switch r.IntN(4) {
			case 0: // a word run together with the next
				q = append(q, word()+word())
			default:
				q = append(q, word())
			}
		}
		if i%5 == 0 { // a name as typed
			q = strings.Fields(strings.Split(docs[r.IntN(len(docs))], " | ")[0])
		}
		query := strings.Join(q, " ")
		ix.Search(ParseQuery(query, DefaultLexicon()), nil, func(m *Match) {
			f, e := m.NameCover()
			wf, we := ix.nameCoverWalk(m.Doc, m.sc)
			if f != wf || e != we {
				t.Fatalf("%q, %q: bound gives full %v exact %v, the walk %v %v", query, docs[m.Doc], f, e, wf, we)
			}
			if m.cover == 0 || !ix.coverable(m.Doc, m.cover) {
				skipped++
			}
			if wf {
				full++
			}
			if we {
				exact++
			}
		})
	}
	if skipped == 0 || full == 0 || exact == 0 {
		t.Fatalf("the test reaches too little: %d skipped, %d full, %d exact", skipped, full, exact)
	}
	t.Logf("%d names skipped by the bound; %d matched in full, %d exactly", skipped, full, exact)
}
