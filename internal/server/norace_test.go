//go:build !race

package server_test

// raceEnabled is set under the race detector (see race_test.go).
const raceEnabled = false
