package main

import (
	"log/slog"
	"runtime/debug"
	"testing"
)

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

// TestApplyGCPercent: --gc-percent sets the collector's target unless GOGC
// is set; -1 needs a memory limit; nonsense is refused.
func TestApplyGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	log := slog.New(slog.DiscardHandler)
	none := func(string) string { return "" }
	if err := applyGCPercent(250, "350MiB", none, log); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != 250 {
		t.Errorf("GC percent %d after --gc-percent 250", got)
	}
	gogc := func(k string) string {
		if k == "GOGC" {
			return "300"
		}
		return ""
	}
	if err := applyGCPercent(250, "350MiB", gogc, log); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d with GOGC set: the flag must not apply", got)
	}
	if err := applyGCPercent(-1, "350MiB", none, log); err != nil {
		t.Errorf("-1 with a memory limit: %v", err)
	}
	debug.SetGCPercent(100)
	for _, c := range []struct {
		percent int
		limit   string
	}{{-1, "0"}, {-1, "off"}, {0, "350MiB"}, {-5, "350MiB"}} {
		if err := applyGCPercent(c.percent, c.limit, none, log); err == nil {
			t.Errorf("--gc-percent %d with --memory-limit %s accepted", c.percent, c.limit)
		}
	}
}
