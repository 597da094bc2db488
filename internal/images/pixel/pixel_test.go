package pixel

import "testing"

func TestClamp8(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want uint8
	}{{-3, 0}, {0, 0}, {0.49, 0}, {0.5, 1}, {127.4, 127}, {254.5, 255}, {255, 255}, {1e9, 255}} {
		if got := Clamp8(c.in); got != c.want {
			t.Errorf("Clamp8(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}
