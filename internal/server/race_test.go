//go:build race

package server_test

// raceEnabled is set under the race detector, under which each perfume of
// a change feed page costs a similar-perfumes ranking ten times slower:
// the hostile input test then serves a change feed of a few perfumes.
const raceEnabled = true
