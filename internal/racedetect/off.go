//go:build !race

// Package racedetect tells a test whether the binary was built with the
// race detector (tests only). The detector makes single-goroutine work,
// such as reading the whole catalogue or ranking every perfume, about ten
// times slower and has no concurrency to check there, so such a test runs
// a sample of its work under it or skips; .ci/run's plain pass (without
// -race) runs it whole.
package racedetect

// Enabled is false: this binary was built without -race.
const Enabled = false
