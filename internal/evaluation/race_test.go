//go:build race

package evaluation

// raceEnabled is set under the race detector, which makes building the
// bundled catalogue's index about ten times slower; the quality tests,
// which only read the built index, then skip.
const raceEnabled = true
