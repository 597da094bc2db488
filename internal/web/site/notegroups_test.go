package site

import "testing"

// TestNoteGroups: the table reads, each note goes to the group of the
// longest phrase in its name (the first group between phrases as long),
// plurals find their singular, and a note no phrase finds is "other".
func TestNoteGroups(t *testing.T) {
	g, err := groups()
	if err != nil {
		t.Fatal(err)
	}
	for note, want := range map[string]string{
		"Bergamot": "citrus", "Calabrian bergamot": "citrus", "Mandarin Orange": "citrus", "Citruses": "citrus",
		"Orange Blossom": "white", "Neroli": "white", "Jasmine Sambac": "white", "Lily-of-the-Valley": "flowers",
		"Bulgarian Rose": "flowers", "Rose Water": "flowers", "Rosewood": "woods", "Iris": "flowers",
		"Red Berries": "fruits", "Black Currant": "fruits", "Coconut": "fruits", "Almond": "fruits",
		"Pink Pepper": "spices", "Sichuan Pepper": "spices", "Cardamom": "spices", "Bell Pepper": "fruits",
		"Lavender": "greens", "Violet Leaf": "greens", "Lemon Verbena": "greens", "Green Notes": "greens",
		"Vanilla": "sweets", "Tonka Bean": "sweets", "Caramel": "sweets", "Vanilla Orchid": "flowers",
		"Sandalwood": "woods", "Agarwood (Oud)": "woods", "Woody Notes": "woods", "Oakmoss": "woods",
		"Incense": "resins", "Benzoin": "resins", "Musk": "musk", "White Musk": "musk", "Musks": "musk",
		"Ambroxan": "musk", "Leather": "musk", "Tobacco": "musk", "Rum": "drinks", "Coffee": "drinks",
		"Sea Notes": "fresh", "Aldehydes": "fresh", "Unobtainium": "other", "": "other",
	} {
		if got := g.group(note).ID; got != want {
			t.Errorf("the group of %q is %s, want %s", note, got, want)
		}
	}
	for _, bad := range []string{"rose", "[x]\nrose\n[y] Y\nRose", "[other] Other\nx", "[x]"} {
		if _, err := parseNoteGroups(bad); err == nil {
			t.Errorf("parseNoteGroups(%q) read a broken table", bad)
		}
	}
}
