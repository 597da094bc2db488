package migrate

import (
	"testing"
	"testing/fstest"
)

func TestList(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0010_later.sql": {Data: []byte("B")},
		"m/0002_first.sql": {Data: []byte("A")},
	}
	ms, err := List(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 2 || ms[0].Name != "0002_first.sql" || ms[0].SQL != "A" || ms[1].Version != 10 {
		t.Fatalf("List = %+v", ms)
	}
	for name, bad := range map[string]fstest.MapFS{
		"no number":    {"m/first.sql": {}},
		"no separator": {"m/0001.sql": {}},
		"same version": {"m/0001_a.sql": {}, "m/1_b.sql": {}},
	} {
		if _, err := List(bad, "m"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
