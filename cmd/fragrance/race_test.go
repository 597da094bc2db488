//go:build race

package main

// raceEnabled is set under the race detector, which makes reading,
// importing and evaluating the whole bundled catalogue single-threaded
// work of seconds to a minute a test: those tests then read the small test
// catalogue or skip, and .ci/run's plain pass runs them on the bundled one.
const raceEnabled = true
