//go:build race

package site_test

// raceEnabled is set under the race detector, under which the perfume
// page test compares a sample of the catalogue's pages (see
// TestPerfumeContentMatchesTemplate).
const raceEnabled = true
