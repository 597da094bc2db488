package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

func TestReadCurated(t *testing.T) {
	got, err := ReadCurated(strings.NewReader("# pairs\ncreed-aventus, dior-sauvage\n\n  a-b ,c-d\n\"e\",g2\n"), "pairs.csv")
	want := [][2]string{{"creed-aventus", "dior-sauvage"}, {"a-b", "c-d"}, {"e", "g2"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadCurated = %q, %v", got, err)
	}
	for in, msg := range map[string]string{
		"a,b\nc\n":          "pairs.csv",
		"a,b,c\n":           "wrong number of fields",
		"a,b\n ,c\n":        "pairs.csv:2: want two slugs",
		"x-y,x-y\n":         "paired with itself",
		"Creed-Aventus,b\n": "not a slug",
		"a,\"b,c\"\n":       "not a slug",
		"a,\"b\n":           "extraneous or missing",
		"a,b\n\"c\"d,e\n":   "line 2",
	} {
		_, err := ReadCurated(strings.NewReader(in), "pairs.csv")
		if !errors.Is(err, catalog.ErrInvalid) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ReadCurated(%q) error = %v, want one saying %q", in, err, msg)
		}
	}
}

// FuzzReadCurated: whatever the file, ReadCurated returns pairs of two
// distinct slugs or an error, and the pairs written back as CSV read back
// the same.
func FuzzReadCurated(f *testing.F) {
	for _, s := range []string{"creed-aventus,dior-sauvage\n", "# c\n\na, b\n", "a,b,c\n", "\"a\nb\",c\n", "a,a\n",
		" , \n", "\"x\"\"y\",z\r\n", "a,\"b", "\xff,\x00\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := ReadCurated(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if !errors.Is(err, catalog.ErrInvalid) {
				t.Fatalf("error %v does not wrap catalog.ErrInvalid", err)
			}
			return
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		for _, p := range pairs {
			for _, s := range p {
				if s == "" || search.Slugify(s) != s {
					t.Fatalf("%q is not a slug", s)
				}
			}
			if p[0] == p[1] {
				t.Fatalf("pair %q of one slug", p)
			}
			w.Write(p[:])
		}
		w.Flush()
		again, err := ReadCurated(&buf, "again.csv")
		if err != nil || len(again) != len(pairs) || (len(pairs) > 0 && !reflect.DeepEqual(again, pairs)) {
			t.Fatalf("round trip of %q: %q, %v", pairs, again, err)
		}
	})
}
