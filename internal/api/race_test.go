//go:build race

package api

// raceEnabled is set under the race detector, which makes the reflection
// encoder about ten times slower: the encoder comparison then samples less.
const raceEnabled = true
