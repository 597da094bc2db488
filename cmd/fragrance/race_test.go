//go:build race

package main

// raceEnabled is set under the race detector, which makes reading and
// comparing the whole bundled catalogue single-threaded work of most of a
// minute: TestBuildIndexStreamsTheCatalogue then streams the small test
// catalogue, and .ci/run's plain pass runs it on the bundled one.
const raceEnabled = true
