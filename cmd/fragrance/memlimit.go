package main

import (
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultMemoryLimit keeps a 200,000-perfume catalogue within 400 MB of
// resident memory: its index holds about 270 MB, and without a limit the
// garbage collector lets the heap grow to twice what is live.
const defaultMemoryLimit = "350MiB"

// applyMemoryLimit sets the Go runtime's soft memory limit from
// --memory-limit, unless GOMEMLIMIT is set (the runtime has applied it
// already, and an operator's explicit setting wins). The limit is soft: a
// larger catalogue still loads, with the collector working harder.
func applyMemoryLimit(flag string, getenv env, log *slog.Logger) error {
	if getenv("GOMEMLIMIT") != "" {
		return nil
	}
	n, err := parseBytes(flag)
	if err != nil {
		return fmt.Errorf("--memory-limit %q: %w", flag, err)
	}
	if n == 0 {
		n = math.MaxInt64 // none
	}
	debug.SetMemoryLimit(n)
	log.Debug("memory limit", "bytes", n)
	return nil
}

// parseBytes reads a size such as 350MiB, 1GiB, 400MB, 512KiB or 1048576
// (bytes); 0, "off" and "none" mean no limit.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "0", "off", "none":
		return 0, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || f*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("want a size such as 350MiB or 1GiB")
	}
	return int64(f * float64(mult)), nil
}
