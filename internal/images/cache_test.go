package images

import "testing"

func TestLRU(t *testing.T) {
	c := newLRU(10)
	c.put("a", servedImage{data: make([]byte, 4)})
	c.put("b", servedImage{data: make([]byte, 4)})
	c.get("a") // a is now the most recent
	c.put("c", servedImage{data: make([]byte, 4)})
	if _, ok := c.get("b"); ok {
		t.Error("least recently used entry kept over budget")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("entry %s dropped", k)
		}
	}
	c.put("huge", servedImage{data: make([]byte, 11)})
	if _, ok := c.get("huge"); ok || c.used > c.budget {
		t.Errorf("entry over the whole budget cached; used %d", c.used)
	}
}
