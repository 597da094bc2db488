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
// resident memory under load: its index is about 180 MB of live heap, and
// without a limit the collector lets the heap grow to three times what is
// live (defaultGCPercent).
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

// memoryLimit is the soft memory limit in force: --memory-limit as
// applyMemoryLimit set it, or GOMEMLIMIT; math.MaxInt64 when there is none.
// The answer cache's automatic size is a share of it.
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// defaultGCPercent lets the heap grow to three times what is live before a
// collection, not twice (Go's GOGC=100): the catalogue is a large, static
// live heap that every cycle marks, and per request the collector then
// costs a tenth less CPU (bench/RESULTS.md has the measurements; 400 saved
// nothing more). The memory limit still bounds the heap: a large catalogue
// collects as it needs.
const defaultGCPercent = 200

// applyGCPercent sets the collector's target from --gc-percent, unless
// GOGC is set (an operator's explicit setting wins). -1 turns the
// proportional target off, leaving collection to the memory limit, which
// must then be set.
func applyGCPercent(percent int, limitFlag string, getenv env, log *slog.Logger) error {
	if getenv("GOGC") != "" {
		return nil
	}
	switch {
	case percent == -1:
		if n, err := parseBytes(limitFlag); err != nil || n == 0 {
			return fmt.Errorf("--gc-percent -1 collects only at the memory limit: set --memory-limit too")
		}
	case percent < 1:
		return fmt.Errorf("--gc-percent %d: want a percentage of at least 1, or -1", percent)
	}
	debug.SetGCPercent(percent)
	log.Debug("gc percent", "percent", percent)
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
