//go:build !race

package cutout

// raceEnabled is true under the race detector (see race_test.go).
const raceEnabled = false
