package images

import "testing"

// TestDrawnVersionsDenseAndMap: a catalogue of small ids keeps its drawn
// versions in an array by id, one of large ids in the map, and both
// answer the same: nothing before a put, the version after, whatever the id.
func TestDrawnVersionsDenseAndMap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []int64
		dense bool
	}{
		{"small ids", []int64{1, 3, 7, 2}, true},
		{"sparse ids", []int64{5, 1 << 40}, false},
		{"no ids", nil, false},
		{"negative ids only", []int64{-3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDrawnVersions("epoch", tc.ids)
			if got := len(d.dense) > 0; got != tc.dense {
				t.Fatalf("dense = %v, want %v", got, tc.dense)
			}
			for _, id := range append(tc.ids, -1, 1<<20, 0) {
				if v, ok := d.get(id); ok {
					t.Fatalf("get(%d) = %v before any put", id, v)
				}
				want := version(uint64(id)*2654435761 + 1)
				if got := d.put(id, want); got != want {
					t.Fatalf("put(%d) returned %v", id, got)
				}
				if v, ok := d.get(id); !ok || v != want {
					t.Fatalf("get(%d) = %v, %v; want %v", id, v, ok, want)
				}
			}
		})
	}
}
