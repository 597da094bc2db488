//go:build !race

package importer

// raceEnabled is set when tests run under the race detector.
const raceEnabled = false
