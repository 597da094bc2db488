//go:build race

package cutout

// raceEnabled is true under the race detector, which slows the pure
// pixel loops tenfold; the long measurements then run on a sample.
const raceEnabled = true
