//go:build !race

package api

// raceEnabled is set under the race detector (see race_test.go).
const raceEnabled = false
