package main

import "testing"

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"350MiB", 350 << 20, true}, {"1GiB", 1 << 30, true}, {"400MB", 400e6, true}, {"512 KiB", 512 << 10, true},
		{"1048576", 1 << 20, true}, {"1.5GiB", 3 << 29, true}, {"0", 0, true}, {"off", 0, true}, {"", 0, true},
		{"-1MiB", 0, false}, {"lots", 0, false}, {"12XB", 0, false}, {"1e30GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := parseBytes(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParseBytes: a flag or environment value is outside input.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"350MiB", "1GiB", "0", "x", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseBytes(s); err == nil && n < 0 {
			t.Fatalf("parseBytes(%q) = %d", s, n)
		}
	})
}
