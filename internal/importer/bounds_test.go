package importer

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostileRow is a valid JSON Lines row of id with fields set by mod.
func hostileRow(t *testing.T, id int, mod func(m map[string]any)) string {
	t.Helper()
	m := map[string]any{
		"fragranticaId": id, "name": "Name " + strings.Repeat("x", id%3), "brand": "Brand", "gender": "unisex",
		"accords": []map[string]any{{"name": "woody", "strength": 100}},
		"notes":   map[string]any{"top": []string{"Bergamot"}},
	}
	if mod != nil {
		mod(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTextFieldsBounded: a row with a text field, or a list, past its
// documented bound is rejected with a reason naming the field and its
// bound, as malformed rows are; rows at the bound are kept.
func TestTextFieldsBounded(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "note " + strings.Repeat("a", i%7) + string(rune('a'+i%26)) + strings.Repeat("b", i/26)
		}
		return out
	}
	rows := []struct {
		mod    func(m map[string]any)
		reason string // "" kept
	}{
		{func(m map[string]any) { m["name"] = long(MaxNameLen) }, ""},
		{func(m map[string]any) { m["name"] = long(20_000) }, "name is 20000 characters; at most 200"},
		{func(m map[string]any) { m["brand"] = long(MaxBrandLen + 1) }, "brand is 101 characters"},
		{func(m map[string]any) { m["description"] = long(200_000) }, "description is 200000 characters; at most 5000"},
		{func(m map[string]any) { m["description"] = long(MaxDescriptionLen) }, ""},
		{func(m map[string]any) { m["family"] = long(MaxLabelLen + 1) }, "family is"},
		{func(m map[string]any) { m["concentration"] = long(MaxLabelLen + 1) }, "concentration is"},
		{func(m map[string]any) {
			m["accords"] = []map[string]any{{"name": long(MaxLabelLen + 1), "strength": 50}}
		}, "accord name is"},
		{func(m map[string]any) {
			var as []map[string]any
			for i := range MaxAccords + 1 {
				as = append(as, map[string]any{"name": "accord " + string(rune('a'+i%26)) + strings.Repeat("z", i/26), "strength": 10})
			}
			m["accords"] = as
		}, "accords: 51; at most 50"},
		{func(m map[string]any) { m["notes"] = map[string]any{"base": []string{long(MaxNoteLen + 1)}} }, "note is"},
		{func(m map[string]any) { m["notes"] = map[string]any{"middle": many(MaxNotesPerLayer + 1)} }, "middle notes: 101; at most 100"},
		{func(m map[string]any) { m["perfumers"] = []string{long(MaxNameLen + 1)} }, "perfumer is"},
		{func(m map[string]any) { m["perfumers"] = many(MaxPerfumers + 1) }, "perfumers: 21; at most 20"},
	}
	var lines []string
	for i, r := range rows {
		lines = append(lines, hostileRow(t, i+1, r.mod))
	}
	res, err := New(fakeTiers{}).ReadJSONL(strings.NewReader(strings.Join(lines, "\n")+"\n"), "hostile.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[int]string{}
	for _, re := range res.Rejected {
		rejected[re.Line] = re.Reason
	}
	for i, r := range rows {
		got, was := rejected[i+1]
		switch {
		case r.reason == "" && was:
			t.Errorf("row %d at its bound rejected: %s", i+1, got)
		case r.reason != "" && !strings.Contains(got, r.reason):
			t.Errorf("row %d: reason %q, want one containing %q", i+1, got, r.reason)
		}
	}
}

// TestControlAndBidiDropped: NUL, other C0 and C1 controls, DEL and the
// bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069)
// are dropped from every text field; tabs and newlines are white space
// (folded to one space, the description keeping its paragraphs).
func TestControlAndBidiDropped(t *testing.T) {
	bad := "\x00\x01\x1b\x7f\u0080\u009b\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
	row := hostileRow(t, 1, func(m map[string]any) {
		m["name"] = "Eau" + bad + " de\tNuit"
		m["brand"] = "Mai" + bad + "son"
		m["family"] = "Wo" + bad + "ody"
		m["concentration"] = "Eau de " + bad + "Parfum"
		m["description"] = "First" + bad + " line.\n\nSecond\u202e paragraph."
		m["accords"] = []map[string]any{{"name": "wo\u202eody", "strength": 100}}
		m["notes"] = map[string]any{"top": []string{"Berga\x00mot"}, "base": []string{"Mu\u2066sk"}}
		m["perfumers"] = []string{"Jean\u0085Claude"}
	})
	res, err := New(fakeTiers{}).ReadJSONL(strings.NewReader(row+"\n"), "bidi.jsonl")
	if err != nil || len(res.Perfumes) != 1 {
		t.Fatalf("%v, rejected %v", err, res.Rejected)
	}
	p := res.Perfumes[0]
	for field, c := range map[string]struct{ got, want string }{
		"name":          {p.Name, "Eau de Nuit"},
		"brand":         {p.Brand, "Maison"},
		"concentration": {p.Concentration, "Eau de Parfum"},
		"description":   {p.Description, "First line.\n\nSecond paragraph."},
		"accord":        {p.Accords[0].Name, "woody"},
		"top note":      {p.Notes.Top[0], "Bergamot"},
		"base note":     {p.Notes.Base[0], "Musk"},
		"perfumer":      {p.Perfumers[0], "Jean Claude"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", field, c.got, c.want)
		}
	}
	if !strings.HasPrefix(p.Family, "Wo") || strings.ContainsFunc(p.Family, func(r rune) bool { return r < ' ' || r == 0x202e }) {
		t.Errorf("family = %q", p.Family)
	}
}
