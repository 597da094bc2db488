//go:build race

package racedetect

// Enabled is true: this binary was built with -race.
const Enabled = true
