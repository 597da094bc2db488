//go:build !race

package site_test

// raceEnabled is set under the race detector (see race_test.go).
const raceEnabled = false
