//go:build race

package server_test

// raceEnabled is set under the race detector, which slows the
// similar-perfumes ranking each perfume of a change feed page costs: the
// hostile input test then serves a change feed of a few perfumes.
const raceEnabled = true
