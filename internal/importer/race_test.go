//go:build race

package importer

// raceEnabled is set when tests run under the race detector, which makes
// reading the whole bundled catalogue about ten times slower.
const raceEnabled = true
