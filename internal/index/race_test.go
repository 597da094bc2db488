//go:build race

package index

// The race detector slows the reference checks tenfold; they check
// answers, not concurrency, so fewer sources do under it.
func init() { raceEnabled = true }
