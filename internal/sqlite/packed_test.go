package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/importer"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// bundledPerfumes is the catalogue shipped in the binary, with slugs.
func bundledPerfumes(t testing.TB) []catalog.Perfume {
	t.Helper()
	ref, err := bundled.LoadReference()
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.New(ref).ReadJSONL(bundled.Catalogue(), bundled.CatalogueName)
	if err != nil {
		t.Fatal(err)
	}
	return res.Perfumes
}

// TestPackedRoundTrip packs and unpacks every bundled perfume, and a
// perfume with every field odd, and wants them back unchanged.
func TestPackedRoundTrip(t *testing.T) {
	ps := bundledPerfumes(t)
	ps = append(ps, catalog.Perfume{ID: -7, Slug: "x", Name: "Näme \"q\"\x00", Year: -1, Rating: 1e-300, RatingCount: -3,
		Accords: []catalog.AccordStrength{{Name: "", Strength: -0.5}}, Notes: catalog.NotePyramid{Unplaced: []string{"", "a"}},
		Perfumers: []string{"P"}, Seasons: catalog.Seasons{Fall: 100}, PriceTier: catalog.TierLuxury})
	dec := newDecoder()
	for _, p := range ps {
		var got catalog.Perfume
		if err := dec.decode(pack(&p), &got); err != nil {
			t.Fatalf("%s: %v", p.Slug, err)
		}
		if want := storetest.Normalized(p); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip of %s:\n got %+v\nwant %+v", p.Slug, got, want)
		}
	}
}

// TestDecodeJSONRecords: rows written before the packed form still load.
func TestDecodeJSONRecords(t *testing.T) {
	p := bundledPerfumes(t)[0]
	slug := p.Slug
	p.Slug = ""
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got catalog.Perfume
	if err := newDecoder().decode(data, &got); err != nil {
		t.Fatal(err)
	}
	got.Slug = slug
	p.Slug = slug
	if !reflect.DeepEqual(storetest.Normalized(got), storetest.Normalized(p)) {
		t.Fatalf("JSON record: got %+v", got)
	}
}

// TestDecodeCorrupt: every truncation of a record is an error, never a panic.
func TestDecodeCorrupt(t *testing.T) {
	data := pack(&bundledPerfumes(t)[0])
	for n := range len(data) {
		var p catalog.Perfume
		if err := newDecoder().decode(data[:n], &p); !errors.Is(err, errCorrupt) && (n == 0 || err == nil) {
			t.Fatalf("truncated to %d bytes: err %v", n, err)
		}
	}
}

// FuzzDecode: the decoder reads what the database holds, which a damaged
// file or another program may have written; it must fail cleanly.
func FuzzDecode(f *testing.F) {
	f.Add(pack(&catalog.Perfume{ID: 1, Name: "a", Accords: []catalog.AccordStrength{{Name: "woody", Strength: 50}}}))
	f.Add([]byte{packedV1, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0] == '{' {
			return // JSON: encoding/json's business
		}
		var p catalog.Perfume
		if err := newDecoder().decode(data, &p); err == nil {
			var q catalog.Perfume
			again := pack(&p)
			if err := newDecoder().decode(again, &q); err != nil || !bytes.Equal(pack(&q), again) {
				t.Fatalf("a decoded record does not survive packing again: %v", err)
			}
		}
	})
}
